"""Seed the catalogue and its users (run by eval/apps/django_admin.py in the app's venv, after
`migrate`): what every task of the `apps` suite starts from. Login names and passwords are the
app class's `users`, passed in WAYMARK_APP_USERS (JSON) so they are written in one place."""

import json
import os
from decimal import Decimal

import django

django.setup()

from django.contrib.auth.models import Group, Permission, User  # noqa: E402
from library.models import Author, Book  # noqa: E402

USERS = json.loads(os.environ["WAYMARK_APP_USERS"])

AUTHORS = {
    "Ada Lovelace": "United Kingdom",
    "Anonymous": "",
    "Arthur C. Clarke": "United Kingdom",
    "Carl Sagan": "United States",
    "Edward Gibbon": "United Kingdom",
    "Isaac Asimov": "United States",
    "Mary Shelly": "United Kingdom",  # misspelt on purpose: a task corrects it
    "Ursula K. Le Guin": "United States",
}

# title, author, genre, year, price, in stock
BOOKS = [
    ("Foundation", "Isaac Asimov", "science-fiction", 1951, "12.00", True),
    ("The Stars, Like Dust", "Isaac Asimov", "science-fiction", 1951, "9.50", True),
    ("I, Robot", "Isaac Asimov", "science-fiction", 1950, "11.00", False),
    ("The Star", "Arthur C. Clarke", "science-fiction", 1955, "4.99", True),
    ("Childhood's End", "Arthur C. Clarke", "science-fiction", 1953, "10.99", True),
    ("The Promise of Space", "Arthur C. Clarke", "science", 1968, "15.00", True),
    ("The Left Hand of Darkness", "Ursula K. Le Guin", "science-fiction", 1969, "13.25", True),
    ("A Wizard of Earthsea", "Ursula K. Le Guin", "fiction", 1968, "8.75", True),
    ("Cosmos", "Carl Sagan", "science", 1980, "16.00", True),
    ("Contact", "Carl Sagan", "science-fiction", 1985, "9.99", True),
    ("Star Maps for Beginners", "Anonymous", "science", 1950, "6.00", True),
    ("Sir Gawain and the Green Knight", "Anonymous", "fiction", 1400, "7.50", True),
    ("Frankenstein", "Mary Shelly", "science-fiction", 1818, "5.99", True),
    ("The Last Man", "Mary Shelly", "science-fiction", 1826, "6.99", True),
    ("The History of the Decline and Fall of the Roman Empire", "Edward Gibbon", "history", 1776, "29.00", True),
]


def perms(*codenames: str) -> list[Permission]:
    found = list(Permission.objects.filter(codename__in=codenames))
    assert len(found) == len(codenames), f"unknown permission among {codenames}"
    return found


authors = {name: Author.objects.create(name=name, country=country) for name, country in AUTHORS.items()}
for title, author, genre, year, price, in_stock in BOOKS:
    Book.objects.create(title=title, author=authors[author], genre=genre, year=year, price=Decimal(price), in_stock=in_stock)

reviewers = Group.objects.create(name="Reviewers")
reviewers.permissions.set(perms("view_book", "view_author"))
archivists = Group.objects.create(name="Archivists")
archivists.permissions.set(perms("view_book", "change_book", "delete_book", "view_chapter"))

User.objects.create_superuser("admin", "admin@example.org", USERS["admin"])
editor = User.objects.create_user("editor", "editor@example.org", USERS["editor"], is_staff=True, first_name="Eddie")
editor.user_permissions.set(perms("view_author", "change_author", "view_book"))
User.objects.create_user("mallory", "mallory@example.org", USERS["mallory"], is_staff=True, first_name="Mallory")
