"""The printable mat, the table homography, seat zones, colour profile, taught faces and cards."""
