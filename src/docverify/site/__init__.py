"""The MkDocs plugin (docverify.site.plugin) and what only the build or a built site uses."""
