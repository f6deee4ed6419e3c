"""The seats on the Pi: gpiozero buttons, LEDs and buzzer. Importing this package touches no pins."""
