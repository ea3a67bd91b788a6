/** Setpoint's version, and the Kubernetes API version it speaks (what /version reports). */
export const VERSION = '0.1.0';
