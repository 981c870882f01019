"""The site's content types: a news page with a rich-text body (Draftail in the editor), an
author chosen from a snippet (the snippet chooser) and a related page (the page chooser)."""

from django.db import models
from wagtail.admin.panels import FieldPanel
from wagtail.fields import RichTextField
from wagtail.models import Page
from wagtail.snippets.models import register_snippet


@register_snippet
class Author(models.Model):
    name = models.CharField(max_length=100)
    role = models.CharField(max_length=100, blank=True)

    panels = [FieldPanel("name"), FieldPanel("role")]

    def __str__(self) -> str:
        return self.name


class NewsPage(Page):
    intro = models.CharField(max_length=250, blank=True)
    body = RichTextField(blank=True)
    author = models.ForeignKey(Author, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    related_page = models.ForeignKey("wagtailcore.Page", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")

    content_panels = [*Page.content_panels, FieldPanel("intro"), FieldPanel("body"), FieldPanel("author"),
                      FieldPanel("related_page")]
