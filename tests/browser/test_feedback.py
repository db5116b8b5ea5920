"""Feedback while typing: an edit goes to the server at once, typing while its evaluation is on its way is
held and sent as one push when the answer comes, the results shown meanwhile stay on screen marked stale,
nothing typed is lost, and two tabs typing together still converge.

The page's frames are watched through a hook installed before its scripts (every WebSocket.send, and
whether it ran inside a timer callback: a debounce sends from one), and the server's answers are held back
where a test needs an evaluation in flight (Playwright's WebSocket routing, which passes every other frame
through unchanged)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import editor, open_with_token, project_body

pytestmark = pytest.mark.browser

MESSAGE = "replicas must be at most 5"
EVALUATION = {"evaluating", "documentErrors", "result", "done", "typecheck", "bundle"}

# Records every frame the page sends, and whether a timer callback (setTimeout/setInterval) sent it.
SEND_HOOK = """
(() => {
  const sent = window.__sent = [];
  let inTimer = 0;
  for (const name of ["setTimeout", "setInterval"]) {
    const original = window[name];
    window[name] = function (callback, ...rest) {
      if (typeof callback !== "function") return original.call(this, callback, ...rest);
      return original.call(this, function (...args) {
        inTimer += 1;
        try { return callback.apply(this, args); } finally { inTimer -= 1; }
      }, ...rest);
    };
  }
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try { sent.push({ message: JSON.parse(data), fromTimer: inTimer > 0, at: performance.now() }); } catch {}
    return send.call(this, data);
  };
})();
"""


def pushes(page) -> list[dict]:
    return [frame for frame in page.evaluate("window.__sent") if frame["message"]["type"] == "push"]


def at_end_of_message(page, document: int = 0) -> None:
    """Focus the policy's editor with the cursor at the end of its message (inside the quotes)."""
    page.evaluate(
        """([message, index]) => {
          const entry = [...window.__playground.workspace.items.values()].filter((e) => e.target === 'document')[index];
          const view = entry.editor.view;
          const at = view.state.doc.toString().indexOf(message) + message.length;
          view.focus();
          view.dispatch({ selection: { anchor: at } });
        }""",
        [MESSAGE, document],
    )


def policy_text(page) -> str:
    return page.evaluate(
        "() => [...window.__playground.workspace.items.values()].find((e) => e.target === 'document').editor.getText()"
    )


def shown_message(page):
    return page.locator(".result-card [data-testid=kubectl]").first


class HeldAnswers:
    """Routes the page's project socket through the test: frames pass unchanged both ways, except the
    server's evaluation messages while `hold` is on, which wait until `release()`."""

    def __init__(self, page):
        self.hold = False
        self.held: list[str] = []
        self.route = None
        page.route_web_socket(re.compile(r"/ws/projects/"), self._connect)

    def _connect(self, route) -> None:
        self.route = route
        server = route.connect_to_server()
        route.on_message(lambda message: server.send(message))
        server.on_message(self._from_server)

    def _from_server(self, message) -> None:
        if self.hold and json.loads(message).get("type") in EVALUATION:
            self.held.append(message)
        else:
            self.route.send(message)

    def release(self) -> None:
        self.hold = False
        held, self.held = self.held, []
        for message in held:
            self.route.send(message)


@pytest.fixture
def hooked(page):
    page.add_init_script(SEND_HOOK)
    return page


def open_fresh(open_project, api):
    status, created = api("POST", "/api/v1/projects", project_body(title="Feedback"))
    assert status == 201
    page = open_project(created)
    expect(shown_message(page)).to_contain_text(MESSAGE)
    expect(page.locator("#results")).to_have_attribute("aria-busy", "false")
    return page, created


def test_the_first_keystroke_on_an_idle_server_is_sent_at_once_and_its_result_follows(hooked, open_project, api):
    page, _ = open_fresh(open_project, api)
    at_end_of_message(page)
    before = len(pushes(page))
    page.keyboard.type("!")
    # Read straight after the keystroke was handled, no waiting: a debounced client has sent nothing yet.
    sent = pushes(page)[before:]
    assert len(sent) == 1, sent
    assert sent[0]["fromTimer"] is False  # sent while handling the keystroke, not by a timer later
    text = policy_text(page)
    at = text.index(MESSAGE) + len(MESSAGE)
    assert [u["changes"] for u in sent[0]["message"]["updates"]] == [[at, [0, "!"], len(text) - at - 1]]
    expect(shown_message(page)).to_contain_text(MESSAGE + "!")
    expect(page.locator("#results")).to_have_attribute("aria-busy", "false")
    # The latency shown is the page's own measure, from the keystroke to the frame that showed its result.
    expect(page.locator("[data-testid=eval-latency]")).to_contain_text(re.compile(r"shown \d+ ms after your keystroke"))


def test_typing_while_an_evaluation_is_in_flight_is_held_then_sent_as_one_push_and_stale_results_stay(
    hooked, open_project, api
):
    held = HeldAnswers(hooked)
    page, created = open_fresh(open_project, api)
    results = page.locator("#results")
    at_end_of_message(page)
    # However slow this machine, the held answer is awaited (the page otherwise stops waiting after a second).
    page.evaluate("window.__playground.live.feedback.wait = 60000")
    held.hold = True
    before = len(pushes(page))
    page.keyboard.type("1")
    expect(results).to_have_class(re.compile(r"\bresults-stale\b"))
    expect(results).to_have_attribute("aria-busy", "true")
    expect(page.locator("[data-testid=stale-cue]")).to_be_visible()
    page.keyboard.type("234", delay=30)
    page.wait_for_timeout(300)  # its evaluation is held: nothing more may go meanwhile
    sent = pushes(page)[before:]
    assert len(sent) == 1, [frame["message"] for frame in sent]
    # The previous result is still on screen (not cleared), dimmed and marked, while the answer is awaited.
    expect(shown_message(page)).to_contain_text(MESSAGE)
    expect(shown_message(page)).not_to_contain_text(MESSAGE + "1")
    expect(page.locator(".result-card")).to_have_count(1)
    assert float(page.locator(".result-card").first.evaluate("card => getComputedStyle(card).opacity")) < 1
    held.release()
    # The answer came: the rest goes as one push, carrying every keystroke typed meanwhile.
    expect(shown_message(page)).to_contain_text(MESSAGE + "1234")
    sent = pushes(page)[before:]
    assert len(sent) == 2, [frame["message"] for frame in sent]
    assert len(sent[1]["message"]["updates"]) == 3
    expect(results).to_have_attribute("aria-busy", "false")
    expect(results).not_to_have_class(re.compile(r"\bresults-stale\b"))
    expect(page.locator("[data-testid=stale-cue]")).to_be_hidden()
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")


def test_fast_typing_loses_no_keystroke_and_the_result_shown_is_the_final_texts(hooked, open_project, api):
    page, created = open_fresh(open_project, api)
    at_end_of_message(page)
    typed = " - ask the platform team for an exception, then try again"
    page.keyboard.type(typed, delay=5)
    expect(shown_message(page)).to_contain_text(MESSAGE + typed)
    expect(page.locator("#results")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
    status, project = api("GET", f"/api/v1/projects/{created['id']}")
    assert status == 200
    assert project["documents"][0]["text"] == policy_text(page)
    assert MESSAGE + typed in project["documents"][0]["text"]
    # Coalesced: fewer pushes than keystrokes (typing went on while an evaluation was on its way).
    assert 1 <= len(pushes(page)) < len(typed)


# Each typist has a spot of its own (two people typing at one spot interleave their characters, as in any
# co-editor, and a test could not name the result): the start of the policy, and the end of its message.
CURSOR_AT = """([spot, message]) => {
  const view = [...window.__playground.workspace.items.values()].find((x) => x.target === 'document').editor.view;
  const text = view.state.doc.toString();
  const at = spot === 'start' ? 0 : text.indexOf('"', text.indexOf(message));
  view.focus();
  view.dispatch({ selection: { anchor: at } });
}"""


def open_as(browser, server_url, created, name):
    context, page = open_with_token(browser, server_url, created, name)
    page.wait_for_selector(".cm-content[contenteditable=true]")
    expect(shown_message(page)).to_contain_text(MESSAGE)
    return context, page


def test_two_tabs_typing_together_converge_on_one_text_and_one_fresh_result(browser, server_url, api):
    status, created = api("POST", "/api/v1/projects", project_body(title="Two typists"))
    assert status == 201
    contexts = []
    try:
        pages = []
        for name in ("Ada", "Grace"):
            context, page = open_as(browser, server_url, created, name)
            contexts.append(context)
            pages.append(page)
        first, second = pages
        at_end_of_message(first)
        first.keyboard.type(" +A", delay=10)
        expect(editor(second, "document", 0)).to_contain_text("+A")
        for round_ in range(3):
            # Each types at its spot while the other's changes and results arrive.
            first.evaluate(CURSOR_AT, ["start", MESSAGE])
            first.keyboard.type(f"# a{round_}\n", delay=5)
            second.evaluate(CURSOR_AT, ["end", MESSAGE])
            second.keyboard.type(f" b{round_}", delay=5)
        for page in pages:
            expect(page.locator("#save-state")).to_have_attribute("data-state", "saved", timeout=20_000)
            expect(page.locator("#results")).to_have_attribute("aria-busy", "false", timeout=20_000)
        texts = [policy_text(page) for page in pages]
        assert texts[0] == texts[1]
        assert texts[0].startswith("# a2\n# a1\n# a0\napiVersion:"), texts[0]
        assert f'message: "{MESSAGE} +A b0 b1 b2"\n' in texts[0], texts[0]
        for page in pages:
            expect(shown_message(page)).to_contain_text(MESSAGE + " +A b0 b1 b2")
        status, project = api("GET", f"/api/v1/projects/{created['id']}")
        assert project["documents"][0]["text"] == texts[0]
    finally:
        for context in contexts:
            context.close()


def test_a_project_state_arriving_while_typing_loses_no_keystroke(browser, server_url, api):
    """Another tab renames the project while this one types: the room sends everyone the project's state, and
    the page used to move every panel to put them in order, which took the focus from the editor being typed
    in (the keystrokes after it went nowhere)."""
    status, created = api("POST", "/api/v1/projects", project_body(title="Typing through a rename"))
    assert status == 201
    contexts = []
    try:
        context, typist = open_as(browser, server_url, created, "Ada")
        contexts.append(context)
        context, renamer = open_as(browser, server_url, created, "Grace")
        contexts.append(context)
        at_end_of_message(typist)
        typed = ""
        for n in range(3):
            chunk = f" and{n}"
            typist.keyboard.type(chunk, delay=20)
            typed += chunk
            renamer.fill("#project-title", f"Renamed {n}")
            renamer.locator("#project-title").press("Enter")
            expect(typist.locator("#project-title")).to_have_value(f"Renamed {n}")
            typist.keyboard.type("!", delay=20)
            typed += "!"
        expect(typist.locator("#save-state")).to_have_attribute("data-state", "saved", timeout=20_000)
        assert MESSAGE + typed in policy_text(typist)
        expect(editor(renamer, "document", 0)).to_contain_text(MESSAGE + typed)
    finally:
        for context in contexts:
            context.close()


def test_a_connection_dropped_while_an_answer_is_on_its_way_ends_fresh_not_stale(hooked, open_project, api):
    page, created = open_fresh(open_project, api)
    at_end_of_message(page)
    page.keyboard.type("?")
    page.evaluate("window.__playground.live.socket.drop()")  # the answer to that push may never come on it
    page.keyboard.type("!")
    expect(page.locator("#conn-state")).to_have_attribute("data-state", "open")
    expect(shown_message(page)).to_contain_text(MESSAGE + "?!")
    expect(page.locator("#results")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
    status, project = api("GET", f"/api/v1/projects/{created['id']}")
    assert MESSAGE + "?!" in project["documents"][0]["text"]
