from enum import StrEnum

class PendingState(StrEnum):
    LINK_EXPIRED = "link-expired"
    WAITING = "waiting"

    def __str__(self) -> str:
        return str(self.value)
