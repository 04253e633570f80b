from enum import StrEnum

class GrantStatus(StrEnum):
    ACTIVE = "active"
    ENDED = "ended"
    NEEDS_NETWORK = "needs-network"
    UPCOMING = "upcoming"

    def __str__(self) -> str:
        return str(self.value)
