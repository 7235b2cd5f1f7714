/* The site's search: the dialog behind the header's search button.
 *
 * hooks/site_search.py writes, at build time, one document per page of each
 * edition (search/en.json, search/zh.json: the page's title, headings, its
 * "questions this page answers", its 中文 search terms, prose and code).
 * MiniSearch (vendor/, the library VitePress's local search uses) indexes them
 * in the browser on first use and ranks with BM25: every word of a question
 * counts, none is required (a reader's question has words no page uses).
 *
 * Words: English is split at anything but letters and digits, `_` names are
 * kept whole and split into their parts, common words are dropped, and plural
 * and -ed/-ing endings are cut. Chinese has no spaces, so every run of Chinese
 * characters is indexed as its single characters and its overlapping pairs
 * (张量拼接: 张量, 量拼, 拼接); a query uses the pairs, so that 张量拼接 finds
 * pages with 张量 and 拼接 in them, whatever a word segmenter would make of it.
 *
 * The field weights were set once, before the first measurement, and not
 * fitted to tests/search_cases.yaml (scripts/compare_search.py measures them).
 * `window.siteSearch.search(query)` is what the dialog shows, for the tests.
 */
(() => {
  "use strict";

  const FIELD_WEIGHTS = { title: 3, headings: 2, questions: 3, keywords: 2, text: 1, code: 0.5 };
  const MAX_RESULTS = 10;
  const STOP_WORDS = new Set(
    ("a an the is are was were be been do does did i my me we you your it its of to in on " +
      "for with and or not no how what why when which should can could would will there this " +
      "that these those than then as at by from into about get gives give use using still " +
      "after before vs if only so").split(" "),
  );
  const CHINESE = /[\u3400-\u9fff]/;
  const WORDS = /[\u3400-\u9fff]+|[A-Za-z0-9_]+/g;

  function stem(word) {
    for (const ending of ["ing", "ed", "es", "s"]) {
      if (word.length > ending.length + 2 && word.endsWith(ending)) {
        return word.slice(0, -ending.length);
      }
    }
    return word;
  }

  function tokenize(text, isQuery) {
    const terms = [];
    for (const run of text.match(WORDS) || []) {
      if (CHINESE.test(run)) {
        if (!isQuery || run.length === 1) terms.push(...run);
        for (let i = 0; i + 1 < run.length; i++) terms.push(run.slice(i, i + 2));
      } else {
        const word = run.toLowerCase();
        const parts = word.split("_").filter(Boolean);
        for (const part of parts) if (!STOP_WORDS.has(part)) terms.push(stem(part));
        if (parts.length > 1) terms.push(word);
      }
    }
    return terms;
  }

  const dialog = document.getElementById("site-search");
  if (!dialog || !window.MiniSearch) return;
  const root = new URL(dialog.dataset.root, location.href);
  let loaded = null;

  function index() {
    loaded ??= fetch(new URL(dialog.dataset.index, location.href))
      .then((response) => response.json())
      .then((documents) => {
        const found = new window.MiniSearch({
          fields: Object.keys(FIELD_WEIGHTS),
          storeFields: ["title", "url", "questions", "boost"],
          tokenize: (text) => tokenize(text, false),
          processTerm: (term) => term,
          searchOptions: {
            boost: FIELD_WEIGHTS,
            combineWith: "OR",
            tokenize: (text) => tokenize(text, true),
            boostDocument: (id, term, stored) => stored?.boost ?? 1,
          },
        });
        found.addAll(documents);
        return found;
      });
    return loaded;
  }

  async function search(query) {
    if (!query.trim()) return [];
    return (await index()).search(query).slice(0, MAX_RESULTS);
  }

  window.siteSearch = {
    async search(query) {
      return (await search(query)).map((hit) => new URL(hit.url, root).href);
    },
  };

  // --- the dialog -------------------------------------------------------------------------
  const input = dialog.querySelector("input[type=search]");
  const status = dialog.querySelector("[role=status]");
  const list = dialog.querySelector("ol");
  const opener = document.querySelector("[aria-controls=site-search]");
  let shown = 0;

  function say(count) {
    const key = count === 0 ? "none" : count === 1 ? "one" : "other";
    status.textContent = dialog.dataset[key].replace("#", String(count));
  }

  function question(hit, query) {
    // The page's own question nearest the reader's, shown under its title.
    const terms = new Set(tokenize(query, true));
    let best = "";
    let bestScore = 0;
    for (const line of (hit.questions || "").split("\n")) {
      const score = tokenize(line, false).filter((t) => terms.has(t)).length;
      if (score > bestScore) [best, bestScore] = [line, score];
    }
    return best;
  }

  async function show() {
    const query = input.value;
    const mine = ++shown;
    const hits = await search(query);
    if (mine !== shown) return; // a later keystroke has its own results
    list.replaceChildren(
      ...hits.map((hit) => {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = new URL(hit.url, root).href;
        link.textContent = hit.title;
        item.append(link);
        const asked = question(hit, query);
        if (asked) {
          const line = document.createElement("p");
          line.textContent = asked;
          item.append(line);
        }
        return item;
      }),
    );
    if (query.trim()) say(hits.length);
    else status.textContent = dialog.dataset.placeholder;
    dialog.dataset.query = query; // what the list now shows (the tests wait for it)
  }

  function close() {
    dialog.close();
    opener?.focus(); // back where the reader was (also after Esc: the "close" event below)
  }

  function open() {
    if (dialog.open) return;
    dialog.showModal();
    input.select();
    index(); // start loading while the reader types
  }

  opener?.addEventListener("click", open);
  input.addEventListener("input", show);
  dialog.querySelector("form").addEventListener("submit", (event) => {
    event.preventDefault();
    const first = list.querySelector("a");
    if (first) location.href = first.href;
  });
  dialog.querySelector(".site-search__close").addEventListener("click", close);
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) close(); // a click on the backdrop
  });
  dialog.addEventListener("close", () => opener?.focus());
  list.addEventListener("keydown", (event) => {
    const links = [...list.querySelectorAll("a")];
    const at = links.indexOf(document.activeElement);
    if (event.key === "ArrowDown" && at + 1 < links.length) links[at + 1].focus();
    else if (event.key === "ArrowUp") (at > 0 ? links[at - 1] : input).focus();
    else return;
    event.preventDefault();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      // A search box clears itself on Escape; here Escape closes the dialog at once.
      event.preventDefault();
      close();
    } else if (event.key === "ArrowDown" && list.querySelector("a")) {
      event.preventDefault();
      list.querySelector("a").focus();
    }
  });
  document.addEventListener("keydown", (event) => {
    const typing = event.target.closest?.("input, textarea, select, [contenteditable]");
    const slash = event.key === "/" && !typing;
    const ctrlK = event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey);
    if (slash || ctrlK) {
      event.preventDefault();
      open();
    }
  });
})();
