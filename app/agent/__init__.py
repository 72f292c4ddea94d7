"""What the agent knows of every domain: where each tool is declared (`registry`), how tools show a
user's rows to the model (`views`), and which toolsets a model round carries (`toolsets`).

Every domain's `tools` build on these; the assistant (app/assistant) runs the turns that call them.
"""
