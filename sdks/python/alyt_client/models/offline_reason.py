from enum import StrEnum

class OfflineReason(StrEnum):
    HEARTBEAT = "heartbeat"
    LAST_WILL = "last-will"

    def __str__(self) -> str:
        return str(self.value)
