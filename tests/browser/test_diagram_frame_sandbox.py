"""The diagram frame is a sandbox: Mermaid draws in a frame of opaque origin (`sandbox="allow-scripts"`),
so HTML a hostile diagram makes it build (an <img onerror> in a sequence message, a mindmap node —
and diagram text may come from the model) reaches neither the page, its cookies nor the app. The
page and the frame still talk: a diagram is drawn, and its picture follows the page's width."""

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook import services as notebook
from app.profile import accounts, configuration
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as

pytestmark = pytest.mark.browser

PASSWORD = "sandboxes keep secrets"
# Each payload, if it ran anywhere, would tell the page by three roads: its title, a message, a flag
# (commas, not semicolons: a semicolon ends a sequence diagram's statement).
RAN = "top.document.title='ran',parent.postMessage('ran','*'),window.ran=1"
HOSTILE = (
    f'sequenceDiagram\n  Alice->>Bob: <img src=x onerror="{RAN}">',
    f'mindmap\n  root((Cells))\n    payload["<img src=x onerror={RAN}>"]',
)


@pytest.fixture(scope="module")
def diagram_page(tmp_path_factory):
    database = tmp_path_factory.mktemp("sandbox-e2e") / "sandbox.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        user = accounts.register(name="Ivo", email="ivo@example.com", password=PASSWORD, timezone_name="UTC")
        configuration.update(user, tutorial_done=True)
        page = notebook.create_page(user, notebook.create_topic(user, "Biology").id, "Cells")
        notebook.add_diagram(user, page.id, "flowchart LR\n  Cell --> Nucleus --> DNA")
        for source in HOSTILE:
            notebook.add_diagram(user, page.id, source)
        page_id = page.id
    with serve(app) as base_url:
        yield base_url, f"{base_url}/notebook/pages/{page_id}"


# The frame's own policy refusing the hostile diagrams' `onerror` handlers is the point of the test.
@pytest.mark.console_errors_expected("Executing inline event handler violates")
def test_a_diagram_is_drawn_in_a_sandboxed_frame_and_a_hostile_one_runs_nothing(page, diagram_page):
    base_url, url = diagram_page
    signed_in_as(page, base_url, "ivo@example.com", PASSWORD)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url)
    page.evaluate("window.heard = []; addEventListener('message', (e) => heard.push(e.data))")
    diagrams = page.locator("[data-mermaid]")
    expect(diagrams).to_have_count(3)
    for index in range(3):
        expect(diagrams.nth(index)).to_have_attribute("data-mermaid-state", "drawn", timeout=20_000)
    picture = diagrams.first.locator("[data-mermaid-drawing] img")
    expect(picture).to_be_visible()

    frame = page.locator("iframe[title=Mermaid]")
    expect(frame).to_have_attribute("sandbox", "allow-scripts")
    inside = next(child for child in page.frames if child.url.endswith("/notebook/diagram-frame"))
    assert inside.evaluate("window.origin") == "null"
    for reach in ("parent.document.title", "document.cookie", "localStorage.length"):
        assert inside.evaluate(f"() => {{ try {{ {reach}; return 'reached' }} catch (e) {{ return e.name }} }}") == (
            "SecurityError"
        ), reach

    assert page.title() != "ran" and page.evaluate("window.ran") is None
    assert "ran" not in page.evaluate("window.heard") and inside.evaluate("window.ran") is None

    wide = picture.bounding_box()["width"]  # the picture follows the page's width
    page.set_viewport_size({"width": 390, "height": 844})
    expect(picture).to_be_visible()
    narrow = picture.bounding_box()["width"]
    column = diagrams.first.bounding_box()["width"]
    assert narrow <= column + 1 and narrow < wide
