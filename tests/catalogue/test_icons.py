"""The icon catalogue: about 200 ids grouped by life area, each drawable, unknown ids defaulted."""

import re
from pathlib import Path

from app.shared import icons

SPRITE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "feather-sprite-4.29.2.svg"


def test_the_catalogue_holds_about_two_hundred_icons_in_life_areas():
    assert 180 <= len(icons.ICON_GROUP) <= 260
    assert {key for key, _label, ids in icons.grouped() if ids} == set(icons.GROUPS)


def test_every_line_icon_exists_in_the_sprite_and_every_emoji_has_a_character():
    drawn = set(re.findall(r'symbol id="([a-z0-9-]+)"', SPRITE.read_text()))
    for icon_id in icons.ICON_GROUP:
        if icon_id.startswith("emoji-"):
            assert icons.emoji_for(icon_id), icon_id
        else:
            assert icon_id in drawn, icon_id


def test_unknown_or_missing_ids_resolve_to_the_default():
    assert icons.resolve("book") == "book"
    assert icons.resolve("not-an-icon") == icons.DEFAULT == icons.resolve("")
    assert icons.is_known(icons.DEFAULT)


def test_icons_are_drawn_as_decoration_or_as_named_images_with_their_text_escaped(app):
    from app.web.assets import entity_icon, icon

    with app.test_request_context("/"):
        href = icon("book").split('href="')[1].split("#")[0]
        assert "feather-sprite-4.29.2.svg?v=" in href
        assert icon("book") == (f'<svg class="icon" aria-hidden="true" width="20" height="20">'
                                f'<use href="{href}#book"></use></svg>')  # fmt: skip
        assert 'role="img" aria-label="Tom &amp; &lt;Jerry&gt;"' in icon("book", "Tom & <Jerry>")
        named = '<span class="entity-icon emoji" role="img" aria-label="Run">🏃</span>'
        assert entity_icon("emoji-run", "Run") == named
        assert entity_icon("emoji-run") == '<span class="entity-icon emoji" aria-hidden="true">🏃</span>'
        assert entity_icon("not-an-icon") == f'<span class="entity-icon">{icon(icons.DEFAULT)}</span>'
        assert entity_icon(None) == entity_icon("")
