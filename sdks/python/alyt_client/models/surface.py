from enum import StrEnum

class Surface(StrEnum):
    PHONE = "phone"
    TV = "tv"

    def __str__(self) -> str:
        return str(self.value)
