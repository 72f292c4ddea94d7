"""The notebook AI's tables: the tutor's exchanges on a page (`tutor`), and the studio's outputs
and flashcard drafts (`studio`)."""
