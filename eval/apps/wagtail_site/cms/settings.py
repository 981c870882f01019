"""Settings of the Wagtail site the `apps` suite runs (eval/apps/wagtail.py): everything the site
writes (its SQLite database, uploaded media, the migrations made for `newsroom`) lives in the state
folder named by WAYMARK_APP_STATE, so resetting a task is copying that folder back."""

import os
import sys
from pathlib import Path

STATE = Path(os.environ["WAYMARK_APP_STATE"])
# The migrations of `newsroom` are made by the seed, in the state folder, never in this checkout.
sys.path.insert(0, str(STATE / "code"))
MIGRATION_MODULES = {"newsroom": "newsroom_migrations"}

SECRET_KEY = "waymark-eval-only-not-a-secret"
DEBUG = True  # runserver serves the admin's static files only in debug mode
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "newsroom",
    "wagtail.sites",
    "wagtail.users",
    "wagtail.snippets",
    "wagtail.documents",
    "wagtail.images",
    "wagtail.search",
    "wagtail.admin",
    "wagtail",
    "modelcluster",
    "taggit",
    "django_filters",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
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

ROOT_URLCONF = "cms.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# A state folder is thrown away after its task: no fsync per commit (the seed's few hundred
# migrations each commit once, which on a busy disk cost minutes).
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": STATE / "db.sqlite3",
                         "OPTIONS": {"init_command": "PRAGMA synchronous=OFF"}}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
# Django's default hasher costs about a second per login on two shared cores: a fixture's
# passwords need no key stretching.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
MEDIA_ROOT = STATE / "media"
MEDIA_URL = "/media/"

WAGTAIL_SITE_NAME = "Corner Bakery"
WAGTAILADMIN_BASE_URL = "http://127.0.0.1"
# No moderation workflow: an editor who may publish publishes, as on most small sites (Wagtail's
# default workflow would turn every Publish into "Submit to Moderators approval").
WAGTAIL_WORKFLOW_ENABLED = False
WAGTAILSEARCH_BACKENDS = {"default": {"BACKEND": "wagtail.search.backends.database"}}
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10_000
