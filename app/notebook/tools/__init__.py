"""The notebook's tools: its pages and their notes and diagrams (`pages`), and each page's board
of concepts with today's study plan (`board`)."""
