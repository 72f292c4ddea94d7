"""The notebook's tables: topics, pages and their blocks (`pages`), each page's board of concepts
(`board`), and its sources with their passages and vectors (`sources`)."""
