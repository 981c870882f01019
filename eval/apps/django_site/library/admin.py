"""The catalogue in Django's admin: a changelist with filters, search and a bulk action, and a
book's chapters as an inline formset."""

from django.contrib import admin

from library.models import Author, Book, Chapter


class ChapterInline(admin.TabularInline):
    model = Chapter
    extra = 3


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = ("name", "country")
    search_fields = ("name",)


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ("title", "author", "genre", "year", "price", "in_stock")
    list_filter = ("genre", "in_stock")
    search_fields = ("title", "author__name")
    inlines = [ChapterInline]
    actions = ["mark_out_of_stock"]

    @admin.action(description="Mark selected books as out of stock")
    def mark_out_of_stock(self, request, queryset):
        count = queryset.update(in_stock=False)
        self.message_user(request, f"{count} book(s) marked as out of stock.")
