"""The admin area: the feedback inbox, the LLM chain, the users, the audit log and the metrics,
reachable only by accounts granted with `flask users make-admin`.
"""

from app.domains import Domain, Elsewhere

DOMAIN = Domain(
    "admin",
    Elsewhere("/admin, linked from the More sheet for admins"),
    not_exported={
        "admin_audit": "an admin's record of the admin pages they opened and what they changed, "
        "read at /admin/audit; it holds no one's content"
    },
)
