"""Seeds a Trac environment for the `apps` suite: run by eval/apps/trac.py with the Trac venv's own
Python (it imports trac, which Waymark's venv never has), as `python seed.py ENV_DIR`.

Every row gets a fixed time, so two seeds hold the same data and a task's judge query never
depends on when the seed ran."""

from __future__ import annotations

import sys
from datetime import datetime, timezone

from trac.env import Environment
from trac.perm import PermissionSystem
from trac.ticket.model import Component, Milestone, Ticket, Version
from trac.wiki.model import WikiPage

SEEDED = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)

COMPONENTS = {"backend": "bob", "reports": "ada", "web ui": "grace"}

MILESTONES = [
    ("Release 1.0", "The first public release.", datetime(2026, 10, 1, tzinfo=timezone.utc), True),
    ("Release 1.1", "Bug fixes after the first release.", datetime(2027, 1, 15, tzinfo=timezone.utc), False),
    ("Release 1.2", "Reporting and accessibility.", datetime(2027, 4, 30, tzinfo=timezone.utc), False),
]

# (summary, type, component, priority, milestone, owner, status, reporter, description)
TICKETS = [
    ("Login page rejects passwords with spaces", "defect", "backend", "major", "Release 1.1", "bob", "new",
     "grace", "A password such as `correct horse` is refused with *Invalid password*."),
    ("Dashboard loads slowly with 500 projects", "defect", "web ui", "critical", "Release 1.1", "ada", "accepted",
     "bob", "The dashboard takes 12 seconds to load for an account with 500 projects."),
    ("Add a dark mode to the settings page", "enhancement", "web ui", "minor", "Release 1.2", "grace", "new",
     "ada", "Users ask for a dark colour scheme."),
    ("Typo in the invoice footer", "defect", "reports", "trivial", "Release 1.1", "ada", "new",
     "grace", "The footer reads *Thank you for you business*."),
    ("Nightly backup job fails on Sundays", "defect", "backend", "blocker", "Release 1.1", "bob", "assigned",
     "ada", "The backup job exits with status 2 every Sunday since the clock change."),
    ("Export the monthly report as PDF", "task", "reports", "major", "Release 1.2", "ada", "new",
     "bob", "Finance wants the monthly report as a PDF attachment."),
]

WIKI = {
    "ReleaseChecklist": (
        "= Release checklist =\n\n"
        "Steps for every release:\n\n"
        " 1. Close or move every open ticket of the milestone.\n"
        " 1. Update the changelog.\n"
        " 1. Build the packages.\n"
    ),
    "TeamContacts": (
        "= Team contacts =\n\n"
        "||= Name =||= Area =||= Phone =||\n"
        "|| Ada || reports || 555-0101 ||\n"
        "|| Bob || backend || 555-0102 ||\n"
        "|| Grace || web UI || 555-0103 ||\n"
    ),
}

PERMISSIONS = [
    ("admin", "TRAC_ADMIN"),
    # A public tracker: anyone may file a ticket or comment on one; changing a ticket needs an account.
    ("anonymous", "TICKET_CREATE"),
    ("anonymous", "TICKET_APPEND"),
]


def seed(path: str) -> None:
    env = Environment(path, create=True, options=[
        ("project", "name", "Waymark Tracker"),
        ("project", "descr", "Issue tracker of the Waymark eval"),
        ("trac", "database", "sqlite:db/trac.db"),
        ("logging", "log_type", "none"),
    ])
    with env.db_transaction as db:
        # Trac's own sample data (component1, milestone1...) gives way to this tracker's.
        db("DELETE FROM component")
        db("DELETE FROM milestone")
        db("DELETE FROM version")
    for name, owner in COMPONENTS.items():
        component = Component(env)
        component.name, component.owner = name, owner
        component.insert()
    for name, description, due, done in MILESTONES:
        milestone = Milestone(env)
        milestone.name, milestone.description, milestone.due = name, description, due
        milestone.completed = due if done else None
        milestone.insert()
    version = Version(env)
    version.name, version.time = "1.0", MILESTONES[0][2]
    version.insert()
    for summary, kind, component, priority, milestone, owner, status, reporter, description in TICKETS:
        ticket = Ticket(env)
        ticket.populate({"summary": summary, "type": kind, "component": component, "priority": priority,
                         "milestone": milestone, "owner": owner, "status": status, "reporter": reporter,
                         "description": description, "version": "1.0"})
        ticket.insert(when=SEEDED)
    for name, text in WIKI.items():
        page = WikiPage(env, name)
        page.text = text
        page.save("admin", "Seeded", SEEDED)
    system = PermissionSystem(env)
    for user, action in PERMISSIONS:
        system.grant_permission(user, action)
    env.shutdown()


if __name__ == "__main__":
    seed(sys.argv[1])
