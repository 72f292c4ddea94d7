"""The routines' tables: routines, their sections and entries and the weekday schedule
(`routines`); what happened to each entry on each day and how far the days are closed
(`checks`); the day outcomes and XP history every streak and chart reads (`history`)."""
