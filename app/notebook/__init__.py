"""The study notebook: topics and their pages, a page's blocks (notes, diagrams, flashcards) and
their spaced review, each page's board of concepts, and its sources (pasted, uploaded or found on
the web), searchable by full text and, with an embeddings endpoint, by meaning.

Its AI (tutor, studio, reading aid) is the package `ai` inside, declared as a domain of its own;
the study cycles that plan study over its pages are app/study_cycles.
"""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "notebook",
    Area(_l("Notebook"), "book", "notebook.index", in_bottom_bar=False),
    export={
        "notebook": ("study_topics", "study_pages"),
        "notebook_blocks": ("study_page_blocks",),
        "study_board": ("study_board_nodes", "study_board_connections"),
        "notebook_sources": ("study_sources",),
    },
    not_exported={
        "study_passages": "cut from each source's text, which is exported; the split rebuilds them",
        "study_passage_vectors": "computed from the passages by the embeddings endpoint, which rebuilds them",
        "study_search_suggestions": "Google's suggestions for a recent web search, kept a day for their frame",
    },
    ids={
        "topic_id": "study_topics",
        "page_id": "study_pages",
        "page_block_id": "study_page_blocks",
        "node_id": "study_board_nodes",
        "source_id": "study_sources",
        "suggestions_id": "study_search_suggestions",
    },
    errors={
        "NOTEBOOK_TOPIC_NOT_FOUND": _l("We couldn't find that topic. It may have been deleted."),
        "NOTEBOOK_PAGE_NOT_FOUND": _l("We couldn't find that page. It may have been deleted."),
        "NOTEBOOK_SEARCH_SUGGESTIONS_NOT_FOUND": _l("These search suggestions are gone. Search again."),
        "NOTEBOOK_PAGE_NOT_FOUND_BY_TITLE": _l(
            "No page is called “%(ref)s”. Your topics: %(topics)s. Use a page's exact title or its id."
        ),
        "NOTEBOOK_PAGE_AMBIGUOUS": _l("More than one page is called “%(ref)s”: %(candidates)s. Use its id."),
        "NOTEBOOK_TOPIC_NAME_REQUIRED": _l("Give the topic a name."),
        "NOTEBOOK_TOPIC_NAME_TOO_LONG": _l("Use at most 120 characters for a topic's name."),
        "NOTEBOOK_PAGE_TITLE_REQUIRED": _l("Give the page a title."),
        "NOTEBOOK_PAGE_TITLE_TOO_LONG": _l("Use at most 200 characters for a page's title."),
        "NOTEBOOK_PARENT_OTHER_TOPIC": _l("A page can only sit inside a page of its own topic."),
        "NOTEBOOK_BLOCK_NOT_FOUND": _l("We couldn't find that block. It may have been deleted."),
        "NOTEBOOK_NOTE_REQUIRED": _l("Write something in the note."),
        "NOTEBOOK_NOTE_TOO_LONG": _l("A note holds at most 20,000 characters. Split it into two notes."),
        "NOTEBOOK_DIAGRAM_REQUIRED": _l("Write the diagram's Mermaid source."),
        "NOTEBOOK_DIAGRAM_TOO_LONG": _l("A diagram's source holds at most 10,000 characters."),
        "NOTEBOOK_DIAGRAM_TYPE_UNKNOWN": _l(
            "Start the diagram with its type, such as “flowchart TD”, “sequenceDiagram” or “mindmap”."
        ),
        "NOTEBOOK_CARD_SIDE_REQUIRED": _l("Write both sides of the card."),
        "NOTEBOOK_CARD_SIDE_TOO_LONG": _l("A card's side holds at most 1,000 characters."),
        "NOTEBOOK_NOT_A_CARD": _l("Only flashcards are reviewed."),
        "NOTEBOOK_GRADE_INVALID": _l("Answer again, good or easy."),
        "NOTEBOOK_DIRECTION_INVALID": _l("Move it up or down."),
        "NOTEBOOK_BLOCK_KIND_INVALID": _l("Add a note, a diagram or a flashcard."),
        "STUDY_NODE_NOT_FOUND": _l("We couldn't find that concept. It may have been removed from the board."),
        "STUDY_NODE_NOT_FOUND_BY_TITLE": _l(
            "No concept on the board of “%(page)s” is called “%(ref)s”. Its concepts: %(titles)s."
        ),
        "STUDY_NODE_AMBIGUOUS": _l("More than one concept is called “%(ref)s”: %(candidates)s. Use its id."),
        "STUDY_NODE_OTHER_PAGE": _l(
            "“%(node)s” is on the board of another page (“%(other)s”), not of “%(page)s”. "
            "A board only joins its own concepts."
        ),
        "STUDY_NODE_TITLE_REQUIRED": _l("Give the concept a title."),
        "STUDY_NODE_TITLE_TOO_LONG": _l("Use at most 200 characters for a concept's title."),
        "STUDY_NODE_DESCRIPTION_TOO_LONG": _l("Use at most 2,000 characters for a concept's description."),
        "STUDY_NODE_STATUS_INVALID": _l("Choose To do, Learning or Done."),
        "STUDY_BOARD_FULL": _l("This board already holds %(limit)s concepts. Remove one to add another."),
        "STUDY_BOARD_ORDER_INVALID": _l(
            "Send every concept of this board exactly once (it has %(count)s) in the new order."
        ),
        "STUDY_CONNECTION_SELF": _l("“%(node)s” can't lead to itself. Choose two different concepts."),
        "STUDY_CONNECTION_EXISTS": _l("“%(source)s” already leads to “%(target)s”."),
        "STUDY_CONNECTION_NOT_FOUND": _l("“%(source)s” doesn't lead to “%(target)s”: there is no such connection."),
        "NOTEBOOK_SOURCE_NOT_FOUND": _l("We couldn't find that source. It may have been deleted."),
        "NOTEBOOK_SOURCE_EMPTY": _l("This source has no text. Paste or upload some text to study from."),
        "NOTEBOOK_SOURCE_TOO_LONG": _l(
            "A pasted source holds at most 100,000 characters. Split it in parts, or upload it as a file."
        ),
        "NOTEBOOK_SOURCE_TITLE_TOO_LONG": _l("Use at most 200 characters for a source's title."),
        "NOTEBOOK_SOURCE_FILE_REQUIRED": _l("Choose a .txt, .md or .pdf file to upload."),
        "NOTEBOOK_SOURCE_FILE_TOO_LARGE": _l("Upload a file of at most 5 MB."),
        "NOTEBOOK_SOURCE_FILE_TYPE": _l("Upload a .txt, .md or .pdf file."),
        "NOTEBOOK_SOURCE_NOT_TEXT": _l(
            "This file isn't plain text (UTF-8). Save it as .txt or .md, or upload the PDF itself."
        ),
        "NOTEBOOK_SOURCE_NOT_PDF": _l("This file is named .pdf but isn't a PDF. Upload the PDF itself."),
        "NOTEBOOK_SOURCE_PDF_UNREADABLE": _l("This PDF can't be read: it may be damaged or password-protected."),
        "NOTEBOOK_SOURCE_PDF_NO_TEXT": _l(
            "This PDF has no text to extract (it may be scanned images). Upload a PDF with selectable text, "
            "or paste the text."
        ),
        "NOTEBOOK_SOURCE_PROCESSING_FAILED": _l(
            "Something went wrong while this source was indexed; nothing of it is searchable. Delete it and "
            "add it again."
        ),
        "NOTEBOOK_SEARCH_TOO_LONG": _l("Search for at most 200 characters."),
        "NOTEBOOK_WEB_SEARCH_OFF": _l("Searching the web for sources isn't set up on this server."),
        "NOTEBOOK_WEB_QUERY_REQUIRED": _l("Type what the sources should be about."),
        "NOTEBOOK_WEB_SEARCH_FAILED": _l(
            "The web search didn't answer. Try again in a moment, or paste a source yourself."
        ),
        "NOTEBOOK_WEB_SEARCH_QUOTA": _l(
            "The web search has used up its searches for now. Try again later, or paste a source yourself."
        ),
        "NOTEBOOK_WEB_SEARCH_KEY": _l(
            "The web search refused this server's key, so it can't search now. Paste a source yourself, and "
            "let the site's administrator know."
        ),
        "NOTEBOOK_WEB_SEARCH_TIMEOUT": _l(
            "The web search took too long to answer. Try again in a moment, or paste a source yourself."
        ),
        "NOTEBOOK_WEB_SOURCE_ADDRESS": _l("This result has no web address to keep with it. Choose another one."),
    },
    catalogue=("Study notebook",),
    toolset="topics and pages, notes, diagrams, concept boards, today's study plan",
)
