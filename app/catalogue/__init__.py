"""What categories, habits, tasks and goals do alike, driven by what each declares: the entity
machinery its services use (`entities`), the dialogs and paged lists its pages use (`dialogs`),
the four tools each declares (`tools`), and the catalogue's stylesheet."""
