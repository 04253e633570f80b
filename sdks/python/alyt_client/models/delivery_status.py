from enum import StrEnum

class DeliveryStatus(StrEnum):
    DELIVERED = "delivered"
    FAILED = "failed"
    HELD = "held"
    PENDING = "pending"
    RETRYING = "retrying"

    def __str__(self) -> str:
        return str(self.value)
