"""The sources panel's embeddings and web search in a real browser, the endpoints faked at the
wire: a pasted source shows its embedding progress until it is searchable by meaning, a failed
embedding says it will be retried; sources found on the web are added by a button (a toast, the
candidate marked added, the new source in the list) — at 390 and 1280 px, by keyboard, in
English and Portuguese, with no console error; and a server without a search key says so."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook import services as notebook
from app.profile import accounts, configuration
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply

pytestmark = pytest.mark.browser

PASSWORD = "sources worth reading"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
CHAPTER = "\n\n".join(
    f"Part {n}. " + "Chlorophyll captures light in the chloroplasts of plant cells. " * 12 for n in (1, 2, 3)
)


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


def a_server(tmp_path_factory, name, **settings):
    database = tmp_path_factory.mktemp(name) / "retrieval.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://",
                     **settings)  # fmt: skip
    pages = {}
    with app.app_context():
        db.create_all()
        for email, language, title in (("lia@example.com", "en", "Plants"), ("rui@example.com", "pt", "Plantas")):
            user = accounts.register(name="Lia", email=email, password=PASSWORD, language=language, timezone_name="UTC")
            configuration.update(user, tutorial_done=True)
            pages[email] = notebook.create_page(user, notebook.create_topic(user, "Biology").id, title).id
    return app, pages


@pytest.fixture(scope="module")
def retrieval_server(tmp_path_factory, fake):
    app, pages = a_server(
        tmp_path_factory, "retrieval-e2e",
        EMBEDDINGS_API_KEY="embed-key", EMBEDDINGS_BASE_URL=fake.base_url("embeddings"),
        SOURCE_SEARCH_API_KEY="tvly-key", SOURCE_SEARCH_BASE_URL=f"{fake.url}/tavily",
    )  # fmt: skip
    with serve(app) as base_url:
        yield base_url, pages


@pytest.fixture(scope="module")
def gemini_search_server(tmp_path_factory, fake):
    app, pages = a_server(
        tmp_path_factory, "gemini-search-e2e",
        SOURCE_SEARCH="gemini", SOURCE_SEARCH_GEMINI_API_KEY="gemini-key",
        SOURCE_SEARCH_GEMINI_BASE_URL=fake.base_url("gemini-search", "gemini"),
    )  # fmt: skip
    with serve(app) as base_url:
        yield base_url, pages


@pytest.fixture(scope="module")
def keyless_server(tmp_path_factory):
    app, pages = a_server(tmp_path_factory, "keyless-e2e")
    with serve(app) as base_url:
        yield base_url, pages


@pytest.fixture(autouse=True)
def _fresh_fake(fake):
    fake.reset()


def open_page(page, server, email):
    base_url, pages = server
    signed_in_as(page, base_url, email, PASSWORD)
    page.goto(f"{base_url}/notebook/pages/{pages[email]}")


def paste(page, title, text, button="Add pasted text"):
    page.locator("details.source-add > summary").click()
    page.locator("#source-title").fill(title)
    page.locator("#source-text").fill(text)
    page.get_by_role("button", name=button).click()


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_a_source_is_embedded_with_its_progress_and_web_sources_are_added(page, retrieval_server, fake, viewport):
    page.set_viewport_size(viewport)
    open_page(page, retrieval_server, "lia@example.com")
    fake.script("embeddings", Reply(first_byte_delay=2.0))
    title = f"Chloroplasts {viewport['width']}"
    paste(page, title, CHAPTER)
    row = page.get_by_test_id("source").filter(has_text=title)
    expect(row.get_by_test_id("source-embedding")).to_contain_text("Embedded 0 of 3 passages for search by meaning")
    expect(row).to_contain_text("3 passages, searchable by words and by meaning", timeout=15_000)
    expect(row.get_by_test_id("source-embedding")).to_have_count(0)

    page.get_by_text("Find sources on the web").click()
    search = page.get_by_label("What should the sources be about?")
    search.fill(f"photosynthesis {viewport['width']}")
    search.press("Enter")
    candidates = page.get_by_test_id("web-candidate")
    expect(candidates).to_have_count(2)
    expect(page.locator("#web-results")).to_contain_text("2 sources found")
    found = f"Photosynthesis {viewport['width']} — an introduction"
    candidates.first.get_by_role("button", name=f"Add “{found}” to this page").click()
    expect(page.locator("#toasts")).to_contain_text(f"“{found}” added to this page's sources.")
    expect(candidates.first.get_by_test_id("web-added")).to_have_text("Added to this page's sources.")
    expect(page.get_by_test_id("source").filter(has_text=found)).to_contain_text("by meaning", timeout=15_000)
    assert no_sideways_scroll(page)
    assert page.console_errors == []


def test_a_failed_embedding_says_it_will_be_retried_and_search_still_finds_the_source(page, retrieval_server, fake):
    open_page(page, retrieval_server, "lia@example.com")
    fake.script("embeddings", Reply.fails(503))
    paste(page, "Stomata", "Stomata are pores on leaves that let carbon dioxide in and water vapour out.")
    row = page.get_by_test_id("source").filter(has_text="Stomata")
    expect(row.get_by_test_id("source-embedding-failed")).to_contain_text(
        "Embedding failed after 0 of 1 passages; it will be retried in a few minutes."
    )
    search = page.get_by_label("Search this page's sources")
    search.fill("stomata")
    expect(page.get_by_test_id("search-hit").filter(has_text="Stomata · passage 1 of 1")).to_be_visible()
    assert page.console_errors == []


def test_the_web_search_is_reached_by_keyboard_and_speaks_portuguese(page, retrieval_server):
    open_page(page, retrieval_server, "rui@example.com")
    page.locator("details.source-web > summary").focus()
    expect(page.locator("details.source-web > summary")).to_have_text("Procurar fontes na web")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Sobre o que devem ser as fontes?")).to_be_focused()
    page.keyboard.type("ciclo da água")
    page.keyboard.press("Enter")
    expect(page.locator("#web-results")).to_contain_text("2 fontes encontradas: adicione as que valem o estudo.")
    add = page.get_by_role("button", name="Adicionar “Ciclo Da Água — an introduction” a esta página")
    add.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("web-added").first).to_have_text("Adicionada às fontes desta página.")
    expect(page.get_by_test_id("source").filter(has_text="Ciclo Da Água")).to_contain_text("por palavras e por sentido",
                                                                                           timeout=15_000)  # fmt: skip
    assert page.console_errors == []


@pytest.mark.console_errors_expected("status of 503 (SERVICE UNAVAILABLE)")
def test_gemini_with_google_search_proposes_the_pages_it_found_in_the_same_panel(page, gemini_search_server, fake):
    page.set_viewport_size(PHONE)
    open_page(page, gemini_search_server, "lia@example.com")
    page.get_by_text("Find sources on the web").click()
    search = page.get_by_label("What should the sources be about?")
    search.fill("photosynthesis")
    search.press("Enter")
    candidates = page.get_by_test_id("web-candidate")
    expect(candidates).to_have_count(2)
    expect(candidates.first).to_contain_text("The encyclopedia article on photosynthesis covers its history")
    # Google's Search Suggestions above them, drawn with their own styles in their own frame
    chip = page.frame_locator('[data-testid="search-suggestions"]').get_by_role("link", name="photosynthesis")
    expect(chip).to_have_attribute("href", re.compile(r"^https://www\.google\.com/search\?q=photosynthesis&"))
    assert chip.evaluate("link => getComputedStyle(link).borderRadius") == "16px"
    assert page.get_by_test_id("search-suggestions").bounding_box()["height"] <= 64
    candidates.first.get_by_role("button", name="Add “wikipedia.org” to this page").click()
    expect(page.locator("#toasts")).to_contain_text("“wikipedia.org” added to this page's sources.")
    expect(page.get_by_test_id("source").filter(has_text="wikipedia.org")).to_contain_text("en.wikipedia.org")
    fake.script("gemini-search", Reply.fails(429))
    search.fill("water cycle")
    search.press("Enter")
    expect(page.get_by_test_id("web-refusal")).to_have_text(
        "The web search has used up its searches for now. Try again later, or paste a source yourself."
    )
    expect(search).to_have_value("water cycle")
    assert no_sideways_scroll(page)
    assert page.console_errors == [  # the browser's own note of the refused search, and nothing else
        "Failed to load resource: the server responded with a status of 503 (SERVICE UNAVAILABLE)"
    ]


def test_without_a_key_the_panel_says_the_web_search_is_not_set_up(page, keyless_server):
    page.set_viewport_size(PHONE)
    open_page(page, keyless_server, "lia@example.com")
    page.get_by_text("Find sources on the web").click()
    expect(page.get_by_test_id("web-search-off")).to_have_text(
        "Searching the web for sources isn't set up on this server. Paste or upload the sources you study from instead."
    )
    expect(page.get_by_label("What should the sources be about?")).to_have_count(0)
    paste(page, "Roots", "Roots take up water and minerals from the soil.")
    expect(page.get_by_test_id("source").filter(has_text="Roots")).to_contain_text("1 passage, searchable")
    expect(page.get_by_test_id("source").filter(has_text="Roots")).not_to_contain_text("meaning")
    assert no_sideways_scroll(page)
    assert page.console_errors == []
