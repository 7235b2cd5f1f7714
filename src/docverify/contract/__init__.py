"""What a page and a snippet must be: embeds, sections, boxes, proof links, page programs.

Read by the site build (docverify.site) and by the tests alike; runs nothing.
"""
