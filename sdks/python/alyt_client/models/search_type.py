from enum import StrEnum

class SearchType(StrEnum):
    ALBUM = "album"
    ARTIST = "artist"
    PLAYLIST = "playlist"
    TRACK = "track"

    def __str__(self) -> str:
        return str(self.value)
