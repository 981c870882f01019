"""The widget libraries of tests/widgets load from their own npm dist files: the pages the typing, state and name tests are checked on."""

async def test_widget_libraries_load_from_their_npm_dist_files(page, widgets):
    await page.goto(f"{widgets}/pages/check.html")
    assert await page.evaluate("typeof jQuery.ui.autocomplete") == "function"
