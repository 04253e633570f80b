from enum import StrEnum

class SourceMode(StrEnum):
    FAVORITES = "favorites"
    LIBRARY = "library"
    SEARCH = "search"

    def __str__(self) -> str:
        return str(self.value)
