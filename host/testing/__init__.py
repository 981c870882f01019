"""What the package ships for testing code that drives a browser, without Chromium (fake_browser)."""
