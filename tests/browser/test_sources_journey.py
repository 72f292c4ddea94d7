"""A study page's sources in a real browser: paste a source and find a passage by search (the
words marked, a planted script shown as text and never run), a long source indexed in the
background with its progress until search finds it, deleting one — by keyboard, at 390 and 1280
px, in English and Portuguese, with no console error."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook import services as notebook
from app.profile import accounts, configuration
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as

pytestmark = pytest.mark.browser

PASSWORD = "sources worth reading"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
CHAPTER = (
    "The cell\n\n"
    "Mitochondria turn glucose and oxygen into ATP, the energy currency of the cell.\n\n"
    '<img src=x onerror="window.planted=1"> Chloroplasts capture light in plant cells.'
)
LONG = "\n\n".join(f"Part {n}. " + "Ribosomes read messenger RNA and build proteins. " * 16 for n in range(1, 31))


@pytest.fixture(scope="module")
def sources_server(tmp_path_factory):
    database = tmp_path_factory.mktemp("sources-e2e") / "sources.sqlite3"
    app = create_app(
        "test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://",
        NOTEBOOK_SOURCE_INLINE_CHARS=2_000,
    )  # fmt: skip
    pages = {}
    with app.app_context():
        db.create_all()
        for email, language, title in (("lia@example.com", "en", "Cells"), ("rui@example.com", "pt", "Células")):
            user = accounts.register(name="Lia", email=email, password=PASSWORD, language=language, timezone_name="UTC")
            configuration.update(user, tutorial_done=True)
            pages[email] = notebook.create_page(user, notebook.create_topic(user, "Biology").id, title).id
    with serve(app) as base_url:
        yield base_url, pages


def open_page(page, server, email):
    base_url, pages = server
    signed_in_as(page, base_url, email, PASSWORD)
    page.goto(f"{base_url}/notebook/pages/{pages[email]}")


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def paste(page, title, text, button="Add pasted text"):
    page.locator("details.source-add > summary").click()
    page.locator("#source-title").fill(title)
    page.locator("#source-text").fill(text)
    page.get_by_role("button", name=button).click()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_paste_a_source_and_find_a_passage_by_search(page, sources_server, viewport):
    page.set_viewport_size(viewport)
    open_page(page, sources_server, "lia@example.com")
    paste(page, f"Chapter {viewport['width']}", CHAPTER)
    row = page.get_by_test_id("source").filter(has_text=f"Chapter {viewport['width']}")
    expect(row).to_contain_text("1 passage, searchable")
    expect(page.locator("#source-text")).to_have_value("")

    search = page.get_by_label("Search this page's sources")
    search.fill("mitochondria")
    search.press("Enter")
    hit = page.get_by_test_id("search-hit").filter(has_text=f"Chapter {viewport['width']} · passage 1 of 1")
    expect(hit.locator("mark")).to_have_text("Mitochondria")
    search.fill("onerror chloroplasts")
    expect(page.get_by_test_id("search-hit").first).to_contain_text('<img src=x onerror="window.planted=1">')
    assert page.evaluate("window.planted === undefined")
    assert no_sideways_scroll(page)
    assert page.console_errors == []


def test_a_long_source_shows_its_progress_until_search_finds_it_then_is_deleted(page, sources_server):
    open_page(page, sources_server, "lia@example.com")
    paste(page, "Protein synthesis", LONG)
    row = page.get_by_test_id("source").filter(has_text="Protein synthesis")
    expect(row).to_have_attribute("data-state", "ready", timeout=20_000)
    expect(row).to_contain_text(re.compile(r"\d+ passages, searchable"))
    search = page.get_by_label("Search this page's sources")
    search.fill("ribosomes")
    expect(page.get_by_test_id("search-hit").first).to_contain_text("Protein synthesis · passage 1 of")

    row.get_by_role("link", name="Delete the source “Protein synthesis”").click()
    page.get_by_role("button", name="Delete", exact=True).click()
    expect(row).to_have_count(0)
    search.fill("ribosomes proteins")
    search.press("Enter")
    expect(page.get_by_test_id("no-results")).to_be_visible()
    assert page.console_errors == []


@pytest.mark.console_errors_expected("status of 422 (UNPROCESSABLE ENTITY)")
def test_the_panel_speaks_portuguese_and_refuses_an_empty_source(page, sources_server):
    open_page(page, sources_server, "rui@example.com")
    expect(page.get_by_role("heading", name="Fontes")).to_be_visible()
    paste(page, "Vazio", "   ", button="Adicionar texto colado")
    expect(page.locator("#source-text-error")).to_have_text(
        "Esta fonte não tem texto. Cole ou envie um texto para estudar."
    )
    expect(page.locator("#source-title")).to_have_value("Vazio")
    page.locator("#source-text").fill("A membrana plasmática envolve a célula.")
    page.get_by_role("button", name="Adicionar texto colado").click()
    expect(page.get_by_test_id("source").first).to_contain_text("1 trecho, pesquisável")
    search = page.get_by_label("Pesquisar nas fontes desta página")
    search.fill("membrana")
    expect(page.get_by_test_id("search-hit").first.locator("mark")).to_have_text("membrana")
    # The one line is Chromium noting the deliberate 422 of the refused empty source.
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)"
    ]


def test_the_search_and_the_forms_are_reached_by_keyboard(page, sources_server):
    open_page(page, sources_server, "lia@example.com")
    page.get_by_label("Search this page's sources").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Search", exact=True)).to_be_focused()
    page.locator("details.source-add > summary").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.locator("#source-title")).to_be_focused()
    assert page.console_errors == []


@pytest.mark.console_errors_expected("status of 422 (UNPROCESSABLE ENTITY)")
def test_an_uploaded_markdown_file_is_searchable_and_a_wrong_file_is_refused(page, sources_server):
    open_page(page, sources_server, "lia@example.com")
    page.locator("details.source-add > summary").click()
    page.locator("#source-file").set_input_files(
        files=[{"name": "slides.docx", "mimeType": "application/octet-stream", "buffer": b"PK\x03\x04"}]
    )
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#source-file-error")).to_have_text("Upload a .txt, .md or .pdf file.")
    page.locator("#source-file").set_input_files(
        files=[{"name": "osmosis.md", "mimeType": "text/markdown", "buffer": b"# Osmosis\n\nWater crosses membranes."}]
    )
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_test_id("source").filter(has_text="osmosis")).to_contain_text("osmosis.md")
    search = page.get_by_label("Search this page's sources")
    search.fill("membranes")
    expect(page.get_by_test_id("search-hit").filter(has_text="osmosis · passage 1 of 1")).to_be_visible()
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)"
    ]
