"""The notebook's AI on a page: the tutor that answers from the page's own material, the studio's
summaries, study guides, quizzes and flashcard drafts, and the reading aid ("Explain this", a
roadmap for the board). Every call goes through the study door (`services.study_model`).

Its domain is named `study_ai`: that is the toolset the model opens and what pages listen for.
"""

from flask_babel import lazy_gettext as _l

from app.domains import Domain, Elsewhere

DOMAIN = Domain(
    "study_ai",
    Elsewhere("on each notebook page (/notebook/pages/<id>): the tutor, the studio and the board's planning"),
    export={
        "study_tutor": ("study_tutor_exchanges",),
        "study_outputs": ("study_outputs",),
        "study_card_drafts": ("study_card_drafts",),
    },
    ids={
        "output_id": "study_outputs",
        "draft_id": "study_card_drafts",
    },
    errors={
        "NOTEBOOK_NOTHING_TO_STUDY": _l(
            "This page has nothing to study from yet. Write a note or add a source to it, then ask again."
        ),
        "STUDY_AI_RATE_LIMITED": _l("You've asked the notebook's AI a lot this hour. You can ask again at %(time)s."),
        "STUDY_AI_UNAVAILABLE": _l("The notebook's AI couldn't reach any AI model right now. Try again in a minute."),
        "STUDY_AI_TOO_SLOW": _l(
            "The notebook's AI took more than %(seconds)s seconds to answer, so we stopped waiting. Nothing was "
            "changed; try again in a moment."
        ),
        "STUDY_AI_ANSWER_UNUSABLE": _l("The notebook's AI answered, but its answer could not be used. Try again."),
        "STUDY_AI_NOT_CONFIGURED": _l(
            "The notebook's AI isn't configured on this server: no AI provider has an API key. "
            "Your notes and sources work as usual."
        ),
        "NOTEBOOK_EXPLAIN_NOTES_ONLY": _l("Only notes and board concepts can be explained."),
        "STUDY_AI_ROADMAP_NONE_PICKED": _l("Pick at least one concept to add to the board."),
        "STUDY_AI_TUTOR_QUESTION_REQUIRED": _l("Type a question for the tutor."),
        "STUDY_AI_TUTOR_QUESTION_TOO_LONG": _l("Ask in at most 2,000 characters."),
        "STUDY_AI_TUTOR_PASSAGE_NOT_FOUND": _l(
            "That passage is no longer in this source. The source may have been deleted or replaced."
        ),
        "STUDY_AI_OUTPUT_NOT_FOUND": _l("We couldn't find that summary, guide or quiz. It may have been deleted."),
        "STUDY_AI_OUTPUT_KIND_INVALID": _l("Choose a summary, a study guide or a quiz."),
        "STUDY_AI_OUTPUTS_FULL": _l("This page keeps at most %(limit)s studio outputs. Delete one to make another."),
        "STUDY_AI_FOCUS_TOO_LONG": _l("Describe the focus in at most 200 characters."),
        "STUDY_AI_SUMMARY_UNSUPPORTED": _l(
            "No summary was made: this page's notes and sources don't hold enough to summarise. "
            "Add to them, or try another focus."
        ),
        "STUDY_AI_GUIDE_UNSUPPORTED": _l(
            "No study guide was made: this page's notes and sources don't hold enough for one. "
            "Add to them, or try another focus."
        ),
        "STUDY_AI_QUIZ_UNSUPPORTED": _l(
            "No quiz was made: this page's notes and sources don't hold enough to ask about. "
            "Add to them, or try another focus."
        ),
        "STUDY_AI_NOT_A_QUIZ": _l("Only a quiz can be answered."),
        "STUDY_AI_DRAFT_NOT_FOUND": _l(
            "We couldn't find that flashcard draft. It may have been accepted or discarded."
        ),
        "STUDY_AI_DRAFTS_FULL": _l(
            "This page already has %(limit)s flashcard drafts waiting. Accept or discard some first."
        ),
        "STUDY_AI_CARD_COUNT_INVALID": _l("Ask for 1 to 20 flashcards."),
        "STUDY_AI_CARDS_UNSUPPORTED": _l(
            "No flashcards were drafted: this page's notes and sources don't hold enough for one. "
            "Add to them, or try another focus."
        ),
        "STUDY_AI_CARDS_NOTHING_NEW": _l(
            "Every flashcard drafted was already on this page or waiting as a draft. Try another focus."
        ),
    },
    toolset="AI flashcard drafts from a notebook page",
    toolset_also_on=("notebook",),
)
