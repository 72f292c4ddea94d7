"""What the model writes is rendered from Markdown and sanitised: no raw HTML, nothing remote."""

from app.web.markdown import render


def test_raw_html_from_the_model_is_shown_as_text_never_run():
    html = render('Hi <script>alert(1)</script> <img src="x" onerror="alert(1)">')
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html


def test_images_are_never_loaded():
    assert "<img" not in render("![tracking](https://evil.example/pixel.png)")


def test_app_links_stay_and_dangerous_links_do_not():
    html = render("[your habits](/habits) and [bad](javascript:alert(1))")
    assert '<a href="/habits"' in html
    assert "javascript:" not in html.split("[bad]")[0] and 'href="javascript' not in html


def test_tables_lists_and_emphasis_survive_and_headings_are_toned_down():
    html = render("# Big\n\n**bold** _it_\n\n- one\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert "<h1>" not in html and "<h3>Big</h3>" in html
    assert "<strong>bold</strong>" in html and "<li>one</li>" in html and "<td>1</td>" in html
