from enum import StrEnum

class CommandState(StrEnum):
    ANSWERED = "answered"
    PENDING = "pending"
    SENT = "sent"
    UNDELIVERABLE = "undeliverable"

    def __str__(self) -> str:
        return str(self.value)
