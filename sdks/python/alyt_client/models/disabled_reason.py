from enum import StrEnum

class DisabledReason(StrEnum):
    DEVELOPER_SUSPENDED = "developer_suspended"
    FAILURES = "failures"
    KEY_EXPIRED = "key_expired"
    KEY_REVOKED = "key_revoked"
    MANUAL = "manual"

    def __str__(self) -> str:
        return str(self.value)
