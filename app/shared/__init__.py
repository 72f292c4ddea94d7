"""What every domain builds on, owned by none: the one family of refusals, loading a row through
its owner, strict reading of typed values, the fields most entities share, the owned row's
columns, the XP and streak mixins, the icon catalogue and the user's today."""
