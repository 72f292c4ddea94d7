"""The assistant's tables: chats, their messages and the turns that write them (`chats`), and the
changes waiting for the person's confirmation (`pending_actions`)."""
