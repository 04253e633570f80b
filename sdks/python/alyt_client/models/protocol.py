from enum import StrEnum

class Protocol(StrEnum):
    MATTER = "MATTER"
    THREAD = "THREAD"
    ZIGBEE = "ZIGBEE"

    def __str__(self) -> str:
        return str(self.value)
