"""A small catalogue: authors, their books, and each book's chapters (edited inline)."""

from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100, unique=True)
    country = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Book(models.Model):
    GENRES = [
        ("fiction", "Fiction"),
        ("science-fiction", "Science fiction"),
        ("history", "History"),
        ("science", "Science"),
    ]

    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
    genre = models.CharField(max_length=20, choices=GENRES)
    year = models.PositiveIntegerField()
    price = models.DecimalField(max_digits=6, decimal_places=2)
    in_stock = models.BooleanField(default=True)

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title


class Chapter(models.Model):
    book = models.ForeignKey(Book, on_delete=models.CASCADE, related_name="chapters")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=200)

    class Meta:
        ordering = ["book", "number"]

    def __str__(self) -> str:
        return f"{self.number}. {self.title}"
