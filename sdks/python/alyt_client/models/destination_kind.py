from enum import StrEnum

class DestinationKind(StrEnum):
    EVENTBRIDGE = "eventbridge"
    WEBHOOK = "webhook"

    def __str__(self) -> str:
        return str(self.value)
