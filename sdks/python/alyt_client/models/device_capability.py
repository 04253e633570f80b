from enum import StrEnum

class DeviceCapability(StrEnum):
    AUDIO_OUT = "AUDIO_OUT"
    BATTERY = "BATTERY"
    BUTTON = "BUTTON"
    CAMERA = "CAMERA"
    COFFEE_MACHINE = "COFFEE_MACHINE"
    COVER = "COVER"
    ENERGY = "ENERGY"
    FAN = "FAN"
    HUB = "HUB"
    IRRIGATION = "IRRIGATION"
    LIGHT = "LIGHT"
    LOCK = "LOCK"
    MEDIA_PLAYER = "MEDIA_PLAYER"
    NETWORK = "NETWORK"
    SENSOR = "SENSOR"
    SWITCH = "SWITCH"
    THERMOSTAT = "THERMOSTAT"
    VACUUM = "VACUUM"
    VOICE = "VOICE"

    def __str__(self) -> str:
        return str(self.value)
