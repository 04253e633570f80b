from enum import StrEnum

class QuotaSource(StrEnum):
    DEFAULT = "default"
    OVERRIDE = "override"

    def __str__(self) -> str:
        return str(self.value)
