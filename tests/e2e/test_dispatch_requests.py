"""The host's `act` method refuses what is not a browser action, with a typed error."""

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, tab_id_of

CALL = "(p) => globalThis.waymark.call('act', p).then(() => 'resolved', e => e.code)"


async def test_an_action_outside_the_grammar_is_refused_as_bad_action(sw):
    await wait_connected(sw)
    assert await sw.evaluate(CALL, {"action": {"type": "teleport"}}) == "bad_action"


async def test_done_is_not_sent_to_the_browser(sw):
    await wait_connected(sw)
    assert await sw.evaluate(CALL, {"action": {"type": "done", "result": "ok"}}) == "bad_action"


async def test_a_request_with_unknown_fields_is_refused_as_bad_params(sw):
    await wait_connected(sw)
    assert await sw.evaluate(CALL, {"action": {"type": "reload"}, "hurry": True}) == "bad_params"


async def test_an_unknown_key_is_a_bad_action_result(sw, page, site_url):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/form.html")
    result = await act(sw, await tab_id_of(sw, page), {"type": "press", "key": "Hyper+Q"}, snapshot=None)
    assert not result.ok
    assert result.error.code == "bad_action"
