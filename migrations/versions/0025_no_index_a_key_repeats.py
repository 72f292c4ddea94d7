"""Drop the indexes that repeat the leading column of their table's unique key

Revision ID: 0025_no_index_a_key_repeats
Revises: 0024_turns_cancelled_running
Create Date: 2026-12-04 06:30:00

Each of these tables has a unique key whose index starts with the same column (a chat's messages
by (chat, position), a user's mood by (user, day) …): that index answers every lookup and every
cascade by the column, so the single-column one only cost each write.
"""

from alembic import op


# revision identifiers, used by Alembic.
revision = "0025_no_index_a_key_repeats"
down_revision = "0024_turns_cancelled_running"
branch_labels = None
depends_on = None

REPEATED = [
    ("chat_messages", "chat_id"),
    ("daily_briefings", "user_id"),
    ("mood_entries", "user_id"),
    ("onboarding_runs", "user_id"),
    ("pinned_steps", "entry_id"),
    ("quick_notes", "user_id"),
    ("schedule_days", "user_id"),
    ("study_blocks", "cycle_id"),
    ("study_board_connections", "from_node_id"),
    ("study_cycle_days", "cycle_id"),
    ("study_cycle_subjects", "cycle_id"),
    ("study_laps", "cycle_id"),
    ("xp_days", "user_id"),
]


def upgrade():
    for table, column in REPEATED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(f"ix_{table}_{column}")


def downgrade():
    for table, column in REPEATED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(f"ix_{table}_{column}", [column], unique=False)
