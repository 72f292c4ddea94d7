"""The categories in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.categories import services as categories
from app.categories.models import Category
from app.shared.export import owned_rows


def export_categories(user):
    return [categories.as_data(category) for category in owned_rows(Category, user, Category.created_at)]
