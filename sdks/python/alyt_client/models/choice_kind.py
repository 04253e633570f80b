from enum import StrEnum

class ChoiceKind(StrEnum):
    FAVORITE = "favorite"
    PLAYLIST = "playlist"
    RADIO = "radio"

    def __str__(self) -> str:
        return str(self.value)
