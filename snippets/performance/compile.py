"""torch.compile on CPU: what it changes and what it does not, graph breaks, recompilations, modes.

Page: docs/performance/compile.md
Everything here runs on a recording backend, which compiles nothing; the page's last
block, inductor's real compilation, is snippets/performance/compile_inductor.py.
"""
# ruff: noqa: E402  (the last section imports AOTAutograd's helpers where the page shows them)

# --8<-- [start:setup]
import logging
import warnings

import torch
from torch import nn

# Python 3.13.0 only (fixed in 3.13.1): Dynamo warns at each compilation that its guards run slower
warnings.filterwarnings("ignore", message="Guards may run slower on Python 3.13.0", category=RuntimeWarning)
torch.manual_seed(0)
x = torch.randn(64, 32)
graphs = []  # what the backend below was handed: one entry per compiled graph
runs = []  # one entry per call of a function the backend returned


def recording_backend(gm: torch.fx.GraphModule, example_inputs: list) -> callable:
    """A torch.compile backend that records each graph it is given, and each run of it, as it is."""
    graphs.append(example_inputs)

    def run_as_captured(*args: torch.Tensor) -> tuple:
        runs.append(1)
        return gm.forward(*args)

    return run_as_captured
# --8<-- [end:setup]

# --8<-- [start:module]
model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 8))
compiled = torch.compile(model, backend=recording_backend)
print(type(compiled).__name__, compiled._orig_mod is model, len(graphs))  # ✓ wrapper
#> OptimizedModule True 0
out = compiled(x)  # the first call compiles
print(len(graphs), len(runs), torch.equal(out, model(x)))  # bit for bit: this backend runs the graph as captured ✓ first-call
#> 1 1 True
compiled(x)  # the second call runs what the backend returned again, and compiles nothing
print(len(graphs), len(runs))  # ✓ runs-returned
#> 1 2
print(all(a is b for a, b in zip(compiled.parameters(), model.parameters(), strict=True)))  # the same tensors ✓ shared-params
#> True
print(list(compiled.state_dict())[:2])  # ✓ prefix
#> ['_orig_mod.0.weight', '_orig_mod.0.bias']
try:
    nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 8)).load_state_dict(compiled.state_dict())
except RuntimeError as err:
    print(str(err).splitlines()[1].strip()[:80])  # ✓ prefix-error
    #> Missing key(s) in state_dict: "0.weight", "0.bias", "2.weight", "2.bias".
model.compile(backend=recording_backend)  # in place: still an nn.Sequential
print(type(model).__name__, list(model.state_dict())[:2])  # ✓ in-place
#> Sequential ['0.weight', '0.bias']
# --8<-- [end:module]

# --8<-- [start:graph-break]
torch.compiler.reset()
graphs.clear()


def branchy(x: torch.Tensor) -> torch.Tensor:
    y = torch.sin(x) * 2
    if y.sum() > 0:  # a Python `if` on a tensor's value
        return y + 1
    return y - 1


compiled_branchy = torch.compile(branchy, backend=recording_backend)
print(torch.equal(compiled_branchy(x), branchy(x)), len(graphs))  # ✓ two-graphs
#> True 2
print(torch.equal(compiled_branchy(-x), branchy(-x)), len(graphs))  # the other branch: one graph more ✓ three-graphs
#> True 3
reused = torch.compile(branchy, backend=recording_backend, fullgraph=True)
print(torch.equal(reused(x), branchy(x)))  # no error: the code compiled above was reused ✓ reused
#> True
torch.compiler.reset()  # forget all compiled code: now fullgraph=True compiles, and refuses
try:
    torch.compile(branchy, backend=recording_backend, fullgraph=True)(x)
except RuntimeError as err:
    print(type(err).__name__, "|", str(err).splitlines()[0][:60])  # ✓ fullgraph-error
    #> Unsupported | Data-dependent branching


def branchless(x: torch.Tensor) -> torch.Tensor:
    y = torch.sin(x) * 2
    return torch.where(y.sum() > 0, y + 1, y - 1)  # the same result, no Python branch


graphs.clear()
compiled_branchless = torch.compile(branchless, backend=recording_backend, fullgraph=True)
print(torch.equal(compiled_branchless(x), branchless(x)), torch.equal(branchless(-x), branchy(-x)), len(graphs))  # ✓ one-graph
#> True True 1
# --8<-- [end:graph-break]

# --8<-- [start:recompile]
def scaled(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x) * 2


for dynamic in (None, False, True):
    torch.compiler.reset()
    graphs.clear()
    fn = torch.compile(scaled, backend=recording_backend, dynamic=dynamic)
    for n in (2, 3, 4, 5):
        assert torch.equal(fn(torch.ones(n)), scaled(torch.ones(n)))
    symbolic = [any(isinstance(i, torch.SymInt) for i in inputs) for inputs in graphs]
    print(f"dynamic={dynamic}: {len(graphs)} graphs, symbolic sizes: {symbolic}")  # ✓ dynamic
    #> dynamic=None: 2 graphs, symbolic sizes: [False, True]
    #> dynamic=False: 4 graphs, symbolic sizes: [False, False, False, False]
    #> dynamic=True: 1 graphs, symbolic sizes: [True]
# --8<-- [end:recompile]

# --8<-- [start:stance]
torch.compiler.reset()
fn = torch.compile(scaled, backend=recording_backend, dynamic=False)
fn(torch.ones(2))
if hasattr(torch.compiler, "set_stance"):
    with torch.compiler.set_stance("fail_on_recompile"):
        try:
            fn(torch.ones(3))
        except RuntimeError as err:
            lines = [line.strip() for line in str(err).splitlines()]
            print(lines[0].split(". ")[0])  # the rest of the line names the file ✓ fail-on-recompile
            #> Detected recompile when torch.compile stance is 'fail_on_recompile'
            print([line for line in lines if line.startswith("- ")])  # the guards that failed ✓ guard-reason
            #> ["- 0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3"]
else:  # requires: torch<2.6
    print("torch.compiler.set_stance: not in this torch")
# --8<-- [end:stance]

# --8<-- [start:limit]
logged = []  # what torch._dynamo logs, with its level (it prints the same on stderr)
catcher = logging.Handler()
catcher.emit = lambda record: logged.append((record.levelname, record.getMessage()))
logging.getLogger("torch._dynamo").addHandler(catcher)
torch.compiler.reset()
graphs.clear()
runs.clear()
fn = torch.compile(scaled, backend=recording_backend, dynamic=False)
with warnings.catch_warnings(record=True) as caught:  # a Python warning would be recorded here
    for n in range(1, 13):  # 12 shapes, 12 compilations asked for
        assert torch.equal(fn(torch.ones(n)), scaled(torch.ones(n)))  # still right...
logging.getLogger("torch._dynamo").removeHandler(catcher)
print(len(graphs))  # ... but compiled only up to the recompile limit, then run eagerly ✓ limit
#> 8
assert len(runs) == len(graphs)  # each compiled graph ran once: the last 4 calls ran eagerly ✓ eager-after-limit
print([(level, line) for level, message in logged for line in message.splitlines() if "limit" in line])  # ✓ limit-log
#> [('WARNING', 'torch._dynamo hit config.recompile_limit (8)')]
assert any('TORCH_LOGS="recompiles"' in message for _, message in logged)  # ✓ torch-logs
assert caught == []  # no Python warning, no exception: only the log says so ✓ silent
fn(torch.ones(1))  # a shape compiled before the limit ...
print(len(runs) - len(graphs))  # ... still ran its compiled graph: one run more than graphs ✓ cached-after-limit
#> 1
# --8<-- [end:limit]

# --8<-- [start:modes]
torch.compiler.reset()
try:
    torch.compile(scaled, mode="fastest")  # no call: torch.compile itself checks the mode
except RuntimeError as err:
    print(str(err))  # ✓ modes
    #> Unrecognized mode=fastest, should be one of: default, lite, reduce-overhead, max-autotune-no-cudagraphs, max-autotune
doc = " ".join(torch.compile.__doc__.split())
assert "Optimizes given model/function using TorchDynamo and specified backend." in doc  # ✓ doc-dynamo
assert '"inductor" is the default backend' in doc  # ✓ doc-inductor
assert '"reduce-overhead" is a mode that reduces the overhead of python with CUDA graphs' in doc  # ✓ mode-doc
assert '"max-autotune" is a mode that leverages Triton or template based matrix multiplications on supported devices' in doc  # ✓ autotune-doc
assert "custom backend" in doc  # the docstring points to how to write one ✓ doc-custom-backend
# --8<-- [end:modes]

# --8<-- [start:train-eval]
import importlib.util
from pathlib import Path

from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import aot_function, make_boxed_func

aot_graphs = []  # (kind, graph) for each graph AOTAutograd hands to the compilers below


def record(kind: str) -> callable:
    """A compiler for one kind of AOTAutograd graph: it records the graph and runs it as traced."""

    def compiler(gm: torch.fx.GraphModule, example_inputs: list) -> callable:
        aot_graphs.append((kind, gm))
        return make_boxed_func(gm.forward)

    return compiler


aot_backend = aot_autograd(
    fw_compiler=record("forward"), bw_compiler=record("backward"), inference_compiler=record("inference")
)
aot_doc = " ".join(aot_function.__doc__.split())
assert "generates a joint forward and backward graph" in aot_doc  # ✓ joint-graph
assert "used to separate out forward and backward graphs" in aot_doc  # ✓ joint-graph
inductor_source = "".join(Path(importlib.util.find_spec("torch._inductor.compile_fx").origin).read_text().split())
assert "aot_autograd(fw_compiler=fw_compiler,bw_compiler=bw_compiler,inference_compiler=" in inductor_source  # ✓ inductor-aot


def ops(gm: torch.fx.GraphModule) -> list[str]:
    """The ATen operations a graph calls, in order."""
    return [str(node.target) for node in gm.graph.nodes if str(node.target).startswith("aten.")]


def outputs(gm: torch.fx.GraphModule) -> list:
    return list(gm.graph.nodes)[-1].args[0]


net = nn.Sequential(nn.Linear(32, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 8))
found = {}
for mode in ("train", "eval"):
    torch.compiler.reset()
    aot_graphs.clear()
    net.train(mode == "train")
    buffers = [b.clone() for b in net[1].buffers()]  # running_mean, running_var, num_batches_tracked
    compiled_net = torch.compile(net, backend=aot_backend)
    with torch.set_grad_enabled(mode == "train"):  # evaluation under no_grad, as a test loop runs it
        first, second = compiled_net(x), compiled_net(x)
        if mode == "train":
            (first.sum() + second.sum()).backward()
    found[mode] = dict(aot_graphs)
    print(mode, {kind: len(ops(gm)) for kind, gm in aot_graphs})  # ATen operations per graph ✓ aot-graphs
    #> train {'forward': 9, 'backward': 18}
    #> eval {'inference': 6}
    print("  two calls, same output:", torch.equal(first, second))  # ✓ dropout-random
    #>   two calls, same output: False
    #>   two calls, same output: True
    print("  buffers changed:", [not torch.equal(b, now) for b, now in zip(buffers, net[1].buffers(), strict=True)])  # ✓ buffers-changed
    #>   buffers changed: [True, True, True]
    #>   buffers changed: [False, False, False]
forward, backward, inference = found["train"]["forward"], found["train"]["backward"], found["eval"]["inference"]
print(sorted(set(ops(forward)) - set(ops(inference))))  # in the training forward only ✓ train-only-ops
#> ['aten._native_batch_norm_legit_functional.default', 'aten.add.Tensor', 'aten.detach.default', 'aten.native_dropout.default']
print(sorted(set(ops(inference)) - set(ops(forward))))  # in eval mode only ✓ train-only-ops
#> ['aten._native_batch_norm_legit_no_training.default']
saved = sum(node.op == "placeholder" for node in backward.graph.nodes) - 1  # less the output's gradient
print(f"outputs: {len(outputs(forward))} in training, {saved} of them saved for the backward;",
      f"{len(outputs(inference))} in eval mode")  # ✓ fw-outputs
#> outputs: 15 in training, 11 of them saved for the backward; 1 in eval mode
assert len(outputs(forward)) == 1 + saved + len(buffers)  # the output, the saved, each buffer's new value ✓ fw-outputs
node = {str(n.target): n for n in forward.graph.nodes}
add = node["aten.add.Tensor"]
assert add.args[1] == 1 and add.args[0].meta["val"].dtype == torch.int64  # num_batches_tracked + 1 ✓ batch-count
saved_names = [n.name for n in backward.graph.nodes if n.op == "placeholder"][:-1]  # what the backward reads
assert [str(o) for o in outputs(forward)[-saved:]] == saved_names  # the forward's last outputs are those ✓ fw-outputs
assert node["aten.detach.default"] in outputs(forward)[-saved:]  # a tensor saved for the backward ✓ detach-saved
bn = node["aten._native_batch_norm_legit_functional.default"]
new_stats = [o for o in outputs(forward)[: len(buffers)] if o is not add]  # the buffers' new values, besides the count
assert len(new_stats) == 2 and all(o.args[0] is bn for o in new_stats)  # running mean and var: from that op ✓ bn-returns-stats
assert not any(op.split(".")[1].endswith("_") for op in ops(forward))  # no in-place op in the graph ✓ no-mutation
torch.compiler.reset()
# --8<-- [end:train-eval]
