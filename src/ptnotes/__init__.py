"""Small helpers shared by the snippets of PyTorch Notes.

Snippets stay copy-pasteable: only page-independent chores (saving a figure
where the site finds it, describing the machine a measurement ran on, picking
the device a test run asks for) live here, so that no snippet repeats them.
"""
