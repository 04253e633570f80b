from enum import StrEnum

class ThingCategory(StrEnum):
    APPLIANCE = "appliance"
    BUTTON = "button"
    CAMERA = "camera"
    COVER = "cover"
    ENERGY = "energy"
    FAN = "fan"
    HUB = "hub"
    IRRIGATION = "irrigation"
    LIGHT = "light"
    LOCK = "lock"
    OTHER = "other"
    SENSOR = "sensor"
    SPEAKER = "speaker"
    SWITCH = "switch"
    THERMOSTAT = "thermostat"
    VACUUM = "vacuum"
    VOICE = "voice"

    def __str__(self) -> str:
        return str(self.value)
