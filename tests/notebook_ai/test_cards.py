"""AI flashcards over the wire fake: drafts from the page's passages only, each from a real passage;
accepted one by one or all (a real flashcard, in the review) or discarded; another user's draft is
unknown; and the agent's generateStudyCards drafts through the same door and bucket."""

import json
import re

import pytest

from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.notebook import services as notebook
from app.notebook.ai import studio
from app.notebook.ai.models.studio import CardDraft
from app.notebook.models.pages import PageBlock
from app.profile import configuration
from app.profile.models import User
from app.shared.errors import Invalid, NotFound
from tests.conftest import make_user
from tests.fakes.script import FakeCall
from tests.notebook_ai.conftest import AgentClient, Reply, a_page, body_of, says

CARDS = {
    "supported": True,
    "cards": [
        {"front": "What makes most of the cell's ATP?", "back": "Mitochondria, through respiration [1].", "passage": 1},
        {"front": "What do ribosomes build?", "back": "Proteins, from amino acids.", "passage": 3},
        {"front": "What does a dragon breathe?", "back": "Fire.", "passage": 9},
        {"front": "  ", "back": "No front.", "passage": 2},
    ],
}


@pytest.fixture
def ana(in_app):
    return in_app


def cards_of(page):
    db.session.expire_all()
    return [(block.text, block.back) for block in page.blocks if block.kind == "card"]


def test_drafts_come_from_the_page_s_passages_only_each_from_a_real_one(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says(CARDS))
    made = studio.draft_cards(ana, page.id, count=5)
    body = body_of(fake.requests("mistral")[0])
    assert "Mode: GROUNDED" in body and "Draft up to 5 flashcards" in body and "Mode: TUTOR" not in body
    assert "[1] (Notes)" in body and "[4] (Cell biology, passage 3)" in body
    # The card from an invented passage 9 and the one with no front are dropped; citations are
    # taken out of the sides (a card names its passage on its own).
    assert [(draft.front, draft.back) for draft in made] == [
        ("What makes most of the cell's ATP?", "Mitochondria, through respiration."),
        ("What do ribosomes build?", "Proteins, from amino acids."),
    ]
    assert made[1].passage["number"] == 3 and made[1].passage["text"].startswith("Ribosomes read messenger RNA")
    assert studio.drafts(ana, page.id) == made and cards_of(page) == []  # drafts, not cards yet


def test_no_drafts_are_stored_when_no_passage_supports_a_card(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says({"supported": False}), says({"supported": True, "cards": [CARDS["cards"][2]]}))
    for _ in range(2):
        with pytest.raises(Invalid) as refused:
            studio.draft_cards(ana, page.id)
        assert refused.value.key == "STUDY_AI_CARDS_UNSUPPORTED"
    assert db.session.scalars(db.select(CardDraft)).all() == []


def test_a_card_already_on_the_page_or_drafted_is_not_drafted_again(ana, fake):
    page = a_page(ana)
    notebook.add_card(ana, page.id, "What do ribosomes build?", "Proteins.")
    fake.script("mistral", says(CARDS), says(CARDS))
    made = studio.draft_cards(ana, page.id)
    assert [draft.front for draft in made] == ["What makes most of the cell's ATP?"]
    assert "do not repeat them:\\n- What do ribosomes build?" in body_of(fake.requests("mistral")[0])
    with pytest.raises(Invalid) as refused:
        studio.draft_cards(ana, page.id)
    assert refused.value.key == "STUDY_AI_CARDS_NOTHING_NEW"
    assert "- What makes most of the cell's ATP?" in body_of(fake.requests("mistral")[1])


@pytest.mark.parametrize("count", ["0", "21", "many"])
def test_a_count_out_of_range_is_refused_before_any_model_is_asked(ana, fake, count):
    with pytest.raises(Invalid) as refused:
        studio.draft_cards(ana, a_page(ana).id, count)
    assert refused.value.details == {"count": "STUDY_AI_CARD_COUNT_INVALID"} and fake.requests() == []


def test_a_page_full_of_drafts_is_refused_before_any_model_is_asked(ana, fake, monkeypatch):
    monkeypatch.setattr(studio, "DRAFTS_PER_PAGE", 2)
    page = a_page(ana)
    fake.script("mistral", says(CARDS))
    studio.draft_cards(ana, page.id)
    with pytest.raises(Invalid) as refused:
        studio.draft_cards(ana, page.id)
    assert refused.value.key == "STUDY_AI_DRAFTS_FULL" and len(fake.requests()) == 1


def test_an_accepted_draft_becomes_a_flashcard_due_for_review_and_leaves_the_drafts(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says(CARDS))
    first, second = studio.draft_cards(ana, page.id)
    card = studio.accept_draft(ana, first.id)
    assert card.kind == "card" and card.page_id == page.id
    assert cards_of(page) == [("What makes most of the cell's ATP?", "Mitochondria, through respiration.")]
    assert [due.id for due in notebook.due_cards(ana)] == [card.id]
    assert studio.drafts(ana, page.id) == [second]
    edited = studio.accept_draft(ana, second.id, back="Proteins.")
    assert (edited.text, edited.back) == ("What do ribosomes build?", "Proteins.")
    assert studio.drafts(ana, page.id) == []


def test_a_draft_edited_to_nothing_is_refused_and_kept(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says(CARDS))
    draft, _other = studio.draft_cards(ana, page.id)
    for act in (studio.edit_draft, studio.accept_draft):
        with pytest.raises(Invalid) as refused:
            act(ana, draft.id, " ", "x" * 1001)
        assert refused.value.details == {"front": "NOTEBOOK_CARD_SIDE_REQUIRED", "back": "NOTEBOOK_CARD_SIDE_TOO_LONG"}
        db.session.rollback()
    assert len(studio.drafts(ana, page.id)) == 2 and cards_of(page) == []
    saved = studio.edit_draft(ana, draft.id, "What powers the cell?", "ATP from mitochondria.")
    assert (saved.front, saved.back) == ("What powers the cell?", "ATP from mitochondria.")


def test_drafts_are_accepted_or_discarded_all_at_once(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says(CARDS), says({**CARDS, "cards": CARDS["cards"][:1]}))
    studio.draft_cards(ana, page.id)
    assert len(studio.accept_all(ana, page.id)) == 2 and len(cards_of(page)) == 2
    other = a_page(ana, title="Membranes")
    studio.draft_cards(ana, other.id)
    draft = studio.drafts(ana, other.id)[0]
    studio.discard_draft(ana, draft.id)
    assert studio.discard_all(ana, other.id) == 0 and cards_of(other) == []


def test_another_user_s_draft_is_unknown(ana, fake, agent_app):
    page = a_page(ana)
    fake.script("mistral", says(CARDS))
    draft = studio.draft_cards(ana, page.id)[0]
    bruno = db.session.get(User, make_user(agent_app, email="bruno@example.com", name="Bruno"))
    for act in (studio.get_draft, studio.discard_draft, studio.accept_draft,
                lambda user, draft_id: studio.edit_draft(user, draft_id, "Mine", "Mine")):  # fmt: skip
        with pytest.raises(NotFound) as refused:
            act(bruno, draft.id)
        assert refused.value.key == "STUDY_AI_DRAFT_NOT_FOUND"
    with pytest.raises(NotFound):
        studio.accept_all(bruno, page.id)
    db.session.expire_all()
    assert studio.get_draft(ana, draft.id).front == "What makes most of the cell's ATP?"


# On the page ------------------------------------------------------------------------------------


def drafted_on_the_page(app, fake):
    """Ana's page with two drafts made through the page; (her client, the page's id)."""
    user_id = make_user(app)
    with app.test_request_context():
        page_id = a_page(db.session.get(User, user_id)).id
        db.session.remove()
    ana = AgentClient(app)
    fake.script("mistral", says(CARDS))
    drafted = ana.post(f"/notebook/pages/{page_id}/studio/drafts", count="10", focus="")
    assert drafted.status_code == 200 and "2 flashcards drafted" in drafted.headers["HX-Trigger"]
    return ana, page_id


def draft_ids(html):
    return re.findall(r'id="draft-([0-9a-f-]{36})"', html)


def test_drafts_made_on_the_page_are_accepted_into_the_review(agent_app, fake):
    ana, page_id = drafted_on_the_page(agent_app, fake)
    html = ana.http.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert html.count('data-testid="studio-draft"') == 2 and "From: Cell biology, passage 2" in html
    first, second = draft_ids(html)
    accepted = ana.post(f"/notebook/studio/drafts/{first}/accept")
    trigger = json.loads(accepted.headers["HX-Trigger"])
    assert accepted.status_code == 204 and "domain:notebook" in trigger and "domain:study_ai" in trigger
    assert trigger["toast"]["link"]["href"] == "/notebook/review"
    review = ana.http.get("/notebook/review").get_data(as_text=True)
    assert "What makes most of the cell&#39;s ATP?" in review and "1 card due" in review
    assert ana.post(f"/notebook/studio/drafts/{second}/discard").status_code == 204
    listed = ana.http.get(f"/notebook/pages/{page_id}/studio/drafts", headers={"HX-Request": "true"})
    assert 'data-testid="studio-no-drafts"' in listed.get_data(as_text=True)


def test_a_draft_is_edited_in_a_dialog_then_accepted_as_edited(agent_app, fake):
    ana, page_id = drafted_on_the_page(agent_app, fake)
    first = draft_ids(ana.http.get(f"/notebook/pages/{page_id}").get_data(as_text=True))[0]
    dialog = ana.http.get(f"/notebook/studio/drafts/{first}/edit", headers={"HX-Request": "true"})
    assert "What makes most of the cell&#39;s ATP?</textarea>" in dialog.get_data(as_text=True)
    refused = ana.post(f"/notebook/studio/drafts/{first}/edit", front="Typed front", back="", then="accept")
    assert refused.status_code == 422 and "Typed front</textarea>" in refused.get_data(as_text=True)
    done = ana.post(f"/notebook/studio/drafts/{first}/edit", front="What powers a cell?", back="ATP.", then="accept")
    assert done.status_code == 204
    with agent_app.app_context():
        cards = db.select(PageBlock.text, PageBlock.back).where(PageBlock.kind == "card")
        assert db.session.execute(cards).all() == [("What powers a cell?", "ATP.")]


def test_discarding_every_draft_asks_first(agent_app, fake):
    ana, page_id = drafted_on_the_page(agent_app, fake)
    asked = ana.http.get(f"/notebook/pages/{page_id}/studio/drafts/discard", headers={"HX-Request": "true"})
    assert "2 flashcard drafts waiting on “Cells” will be discarded." in asked.get_data(as_text=True)
    assert ana.post(f"/notebook/pages/{page_id}/studio/drafts/discard").status_code == 204
    with agent_app.app_context():
        assert db.session.scalars(db.select(CardDraft)).all() == []


def test_another_user_s_draft_is_not_found_on_the_page(agent_app, fake):
    ana, page_id = drafted_on_the_page(agent_app, fake)
    first = draft_ids(ana.http.get(f"/notebook/pages/{page_id}").get_data(as_text=True))[0]
    make_user(agent_app, email="bruno@example.com", name="Bruno")
    bruno = AgentClient(agent_app, email="bruno@example.com")
    for url in (f"/notebook/studio/drafts/{first}/accept", f"/notebook/studio/drafts/{first}/discard",
                f"/notebook/pages/{page_id}/studio/drafts/accept"):  # fmt: skip
        assert bruno.post(url).status_code == 404
    assert bruno.http.get(f"/notebook/studio/drafts/{first}/edit").status_code == 404
    with agent_app.app_context():
        assert len(db.session.scalars(db.select(CardDraft)).all()) == 2


# Through the agent ------------------------------------------------------------------------------


def tool_result(request):
    """The tool message a later round of the turn sent back to the model."""
    return json.loads(next(m["content"] for m in request.body["messages"] if m["role"] == "tool"))


def test_the_agent_drafts_cards_through_the_study_door_and_says_how_many_await(agent_app, fake):
    user_id = make_user(agent_app)
    with agent_app.test_request_context():
        page_id = a_page(db.session.get(User, user_id)).id
        db.session.remove()
    ana = AgentClient(agent_app)
    fake.script(
        "mistral",
        Reply.calls(FakeCall("generateStudyCards", {"page": "Cells", "count": 3})),
        says(CARDS),  # the study door's own call, made by the tool
        Reply.says("I drafted 2 cards; they wait on the page."),
    )
    events = ana.stream(ana.send_ok(ana.new_chat(), "make me flashcards for Cells", page=f"/notebook/pages/{page_id}"))
    assert events[-1]["name"] == "done"
    agent_round, door, answer_round = fake.requests("mistral")
    assert "generateStudyCards" in {tool["function"]["name"] for tool in agent_round.body["tools"]}
    assert "Mode: GROUNDED" in body_of(door) and "Draft up to 3 flashcards" in body_of(door)
    assert "tools" not in door.body
    result = tool_result(answer_round)
    assert result["awaiting"] == 2 and [card["front"] for card in result["drafted"]] == [
        "What makes most of the cell's ATP?", "What do ribosomes build?",
    ]  # fmt: skip
    with agent_app.app_context():
        assert len(db.session.scalars(db.select(CardDraft)).all()) == 2
        assert db.session.scalars(db.select(PageBlock).where(PageBlock.kind == "card")).all() == []  # not accepted


def test_the_tool_refuses_an_ambiguous_title_with_the_candidates_and_asks_no_model(ana, fake):
    a_page(ana)
    a_page(ana, title="Cells", note=None, source=None)
    outcome = tool_calls.run(registry.ToolContext(user=ana, chat=None, page="/notebook"), "generateStudyCards",
                           {"page": "Cells"})  # fmt: skip
    assert outcome.error_key == "NOTEBOOK_PAGE_AMBIGUOUS" and outcome.result["message"].count("Cells (Biology") == 2
    assert fake.requests() == []


def test_the_tool_spends_the_study_bucket_and_says_when_it_refills(make_agent_app, fake):
    app = make_agent_app(STUDY_AI_RATE_LIMIT="1 per hour")
    user_id = make_user(app)
    with app.test_request_context():
        ana = db.session.get(User, user_id)
        page = a_page(ana)
        fake.script("mistral", says(CARDS))
        context = registry.ToolContext(user=ana, chat=None, page="/notebook")
        assert tool_calls.run(context, "generateStudyCards", {"page": str(page.id)}).result["awaiting"] == 2
        refused = tool_calls.run(context, "generateStudyCards", {"page": "Cells", "focus": "ribosomes"})
        assert refused.error_key == "STUDY_AI_RATE_LIMITED" and "You can ask again at" in refused.result["message"]
        assert len(fake.requests("mistral")) == 1
        db.session.remove()


def test_without_javascript_drafting_and_accepting_go_back_to_the_page_with_a_message(agent_app, fake):
    user_id = make_user(agent_app)
    with agent_app.test_request_context():
        page_id = a_page(db.session.get(User, user_id)).id
        db.session.remove()
    ana = AgentClient(agent_app)
    fake.script("mistral", says(CARDS))
    drafted = ana.http.post(f"/notebook/pages/{page_id}/studio/drafts", data={"count": "10", "csrf_token": ana.csrf})
    assert drafted.status_code == 302 and drafted.headers["Location"].endswith(
        f"/notebook/pages/{page_id}#studio-cards-title"
    )
    page = ana.http.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert "2 flashcards drafted" in page
    accepted = ana.http.post(f"/notebook/studio/drafts/{draft_ids(page)[0]}/accept", data={"csrf_token": ana.csrf})
    assert accepted.status_code == 302
    assert "Flashcard added to the page" in ana.http.get(f"/notebook/pages/{page_id}").get_data(as_text=True)


def test_the_export_carries_the_drafts_and_the_outputs_with_their_passages(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says(CARDS), says({"supported": True, "title": "Energy", "text": "ATP [1]."}))
    studio.draft_cards(ana, page.id)
    studio.generate(ana, page.id, "summary")
    exported = json.loads(json.dumps(configuration.export(ana), allow_nan=False))
    assert [draft["front"] for draft in exported["study_card_drafts"]] == [
        "What makes most of the cell's ATP?", "What do ribosomes build?",
    ]  # fmt: skip
    assert exported["study_card_drafts"][1]["passage"]["label"] == "Cell biology"
    (summary,) = exported["study_outputs"]
    assert summary["kind"] == "summary" and summary["content"] == {"text": "ATP [1]."}
    assert summary["passages"][0]["text"].startswith("Mitochondria make") and summary["pageId"] == str(page.id)


def test_drafts_are_made_over_the_gemini_protocol_too(make_agent_app, fake):
    app = make_agent_app(order="gemini")
    user_id = make_user(app)
    with app.test_request_context():
        ana = db.session.get(User, user_id)
        fake.script("gemini", says(CARDS))
        made = studio.draft_cards(ana, a_page(ana).id)
        assert [draft.passage["number"] for draft in made] == [1, 3] and len(fake.requests("gemini")) == 1
        db.session.remove()


# Answers as real models send them (the shapes and their sources: tests/chain/test_structured.py)


def test_generate_study_cards_reads_a_fenced_answer_with_prose_strings_for_numbers_and_extra_fields(ana, fake):
    a_page(ana)
    sent = {**CARDS, "supported": "true", "language": "en"}
    sent["cards"] = [{**card, "passage": str(card["passage"]), "difficulty": "easy"} for card in CARDS["cards"]]
    fake.script("mistral", Reply.says(f"Here are your flashcards:\n\n```json\n{json.dumps(sent, indent=2)}\n```\n"))
    outcome = tool_calls.run(registry.ToolContext(user=ana, chat=None, page="/notebook"), "generateStudyCards",
                             {"page": "Cells"})  # fmt: skip
    assert outcome.error_key is None and outcome.result["awaiting"] == 2
    assert len(fake.requests("mistral")) == 1


def test_generate_study_cards_asks_again_once_for_an_answer_cut_at_the_token_limit(ana, fake):
    a_page(ana)
    whole = json.dumps(CARDS)
    fake.script("mistral", Reply.says(whole[: len(whole) // 2], finish_reason="length"), says(CARDS))
    outcome = tool_calls.run(registry.ToolContext(user=ana, chat=None, page="/notebook"), "generateStudyCards",
                             {"page": "Cells"})  # fmt: skip
    assert outcome.error_key is None and outcome.result["awaiting"] == 2
    _cut, again = fake.requests("mistral")
    assert "cut off at the length limit" in body_of(again)
