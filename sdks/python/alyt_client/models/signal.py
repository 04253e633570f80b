from enum import StrEnum

class Signal(StrEnum):
    CAMERA = "camera"
    CONTACT = "contact"
    MOTION = "motion"
    VIBRATION = "vibration"

    def __str__(self) -> str:
        return str(self.value)
