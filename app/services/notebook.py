"""The study notebook's topics and pages.

A page is found by its id or its exact title. Titles may repeat across topics, so a title two
pages share is refused with every candidate and its topic — never a guess — and a title that
matches nothing answers with the topics there are.
"""

from app.events import announce
from app.extensions import db
from app.models.notebook import PAGE_TITLE_MAX, TOPIC_NAME_MAX, StudyPage, StudyTopic
from app.services.entity_fields import as_uuid, refuse_if
from app.services.errors import Invalid, NotFound
from app.services.ownership import owned


def topics(user):
    """The user's topics in their order, each with its pages loaded."""
    return db.session.scalars(
        db.select(StudyTopic).where(StudyTopic.user_id == user.id).order_by(StudyTopic.position, StudyTopic.created_at)
    ).all()


def get_topic(user, topic_id):
    return owned(StudyTopic, topic_id, user, key="NOTEBOOK_TOPIC_NOT_FOUND")


def get_page(user, page_id):
    return owned(StudyPage, page_id, user, key="NOTEBOOK_PAGE_NOT_FOUND")


def resolve_page(user, ref):
    """The user's page by id or exact title (spaces squeezed, letter case kept).

    No match answers NOTEBOOK_PAGE_NOT_FOUND with the topics' names; several answer
    NOTEBOOK_PAGE_AMBIGUOUS with each candidate's title, topic and id.
    """
    page_id = as_uuid(ref)
    if page_id is not None:
        return get_page(user, page_id)
    title = " ".join(str(ref or "").split())
    matches = (
        db.session.scalars(
            db.select(StudyPage)
            .join(StudyTopic, StudyTopic.id == StudyPage.topic_id)
            .where(StudyPage.user_id == user.id, StudyPage.title == title)
            .order_by(StudyTopic.position, StudyPage.position)
        ).all()
        if title
        else []
    )
    if not matches:
        names = ", ".join(topic.name for topic in topics(user)) or "—"
        raise NotFound("NOTEBOOK_PAGE_NOT_FOUND_BY_TITLE", ref=title, topics=names)
    if len(matches) > 1:
        candidates = "; ".join(f"{page.title} ({page.topic.name}, id {page.id})" for page in matches)
        raise Invalid("NOTEBOOK_PAGE_AMBIGUOUS", ref=title, candidates=candidates)
    return matches[0]


def pages_inside(user, page):
    """The ids of every page nested under `page`, at any depth (not `page` itself)."""
    rows = db.session.execute(
        db.select(StudyPage.id, StudyPage.parent_id).where(
            StudyPage.user_id == user.id, StudyPage.topic_id == page.topic_id
        )
    ).all()
    children = {}
    for page_id, parent_id in rows:
        children.setdefault(parent_id, []).append(page_id)
    found, waiting = set(), [page.id]
    while waiting:
        for child in children.get(waiting.pop(), ()):
            if child not in found:
                found.add(child)
                waiting.append(child)
    return found


def create_topic(user, name):
    """A new topic at the end of the list."""
    clean = _text(name, TOPIC_NAME_MAX, "name", "NOTEBOOK_TOPIC_NAME_REQUIRED", "NOTEBOOK_TOPIC_NAME_TOO_LONG")
    topic = StudyTopic(user_id=user.id, name=clean, position=len(topics(user)))
    db.session.add(topic)
    db.session.commit()
    announce(user, "notebook")
    return topic


def create_page(user, topic_id, title, parent_id=None):
    """A new page at the end of its topic (or of its parent page, when nested in one)."""
    topic = get_topic(user, topic_id)
    clean = _text(title, PAGE_TITLE_MAX, "title", "NOTEBOOK_PAGE_TITLE_REQUIRED", "NOTEBOOK_PAGE_TITLE_TOO_LONG")
    parent = None
    if parent_id:
        parent = get_page(user, parent_id)
        if parent.topic_id != topic.id:
            raise Invalid("NOTEBOOK_PARENT_OTHER_TOPIC")
    siblings = [page for page in topic.pages if page.parent_id == (parent.id if parent else None)]
    page = StudyPage(
        user_id=user.id, topic=topic, parent_id=parent.id if parent else None, title=clean, position=len(siblings)
    )
    db.session.add(page)
    db.session.commit()
    announce(user, "notebook")
    return page


def _text(value, limit, field, empty_key, long_key):
    text = " ".join(str(value or "").split())
    problems = {}
    if not text:
        problems[field] = empty_key
    elif len(text) > limit:
        problems[field] = long_key
    refuse_if(problems)
    return text


def page_data(page):
    """A page as the assistant and the export read it."""
    return {
        "id": str(page.id),
        "title": page.title,
        "topic": page.topic.name,
        "topicId": str(page.topic_id),
        "parentId": str(page.parent_id) if page.parent_id else None,
    }
