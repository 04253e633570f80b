from enum import StrEnum

class UndeliverableReason(StrEnum):
    ALREADY_ACKNOWLEDGED = "already-acknowledged"
    NO_PROPERTY = "no-property"
    SUPERSEDED = "superseded"

    def __str__(self) -> str:
        return str(self.value)
