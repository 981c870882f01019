"""Settings of the small Django project the `apps` eval suite serves (eval/apps/django_admin.py).

Runs in the app's own venv, never in Waymark's: the state folder (the sqlite database) comes from
WAYMARK_APP_STATE, which the harness sets to a fresh copy of the pristine state for each task.
"""

import os
from pathlib import Path

STATE = Path(os.environ["WAYMARK_APP_STATE"])

# A loopback fixture: the key signs nothing outside one eval run.
SECRET_KEY = "waymark-eval-fixture-key-not-a-secret"
# DEBUG makes runserver serve the admin's own static files (its scripts are what the agent works on).
DEBUG = True
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "library",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "waymark_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": STATE / "db.sqlite3"}}

# Django's default hasher costs about a second per login on two shared cores, and every logged-in
# task logs in once: a fixture's passwords need no key stretching.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
