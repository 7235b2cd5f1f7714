"""Page helpers still shared by several snippets (being moved onto their pages).

Nothing here is machinery: the build and test machinery is the package
`docverify`. Issue "The page is the program" moves each helper onto the page
that uses it, so that a page's code runs without this package.
"""
