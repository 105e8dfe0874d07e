within Workbench.Control;
block PIDAxis "PID position controller for one axis with filtered derivative and output limit"
  import Modelica.Units.SI;
  parameter Real kp(unit = "N.m/rad") = 8.0 "Proportional gain";
  parameter Real ki(unit = "N.m/(rad.s)") = 1.0 "Integral gain";
  parameter Real kd(unit = "N.m.s/rad") = 2.0 "Derivative gain";
  parameter SI.Time T_filter = 0.05 "Derivative filter time constant";
  parameter SI.Torque limit = 10.0 "Command saturation";
  input SI.Angle setpoint "Desired angle" annotation(Placement(transformation(extent = {{-140, 20}, {-100, 60}})));
  input SI.Angle measurement "Measured angle" annotation(Placement(transformation(extent = {{-140, -60}, {-100, -20}})));
  output SI.Torque command "Saturated torque command" annotation(Placement(transformation(extent = {{100, -10}, {120, 10}})));
  output SI.Angle error "Control error" annotation(Placement(transformation(extent = {{100, -50}, {120, -30}})));
protected
  Real integral(start = 0, fixed = true, unit = "rad.s") "Integrated error";
  Real filtered(start = 0, fixed = true, unit = "rad") "Low-passed error for the derivative";
  Real derivative(unit = "rad/s") "Filtered error rate";
equation
  error = setpoint - measurement;
  der(integral) = error;
  T_filter * der(filtered) = error - filtered;
  derivative = (error - filtered) / T_filter;
  command = noEvent(max(-limit, min(limit, kp * error + ki * integral + kd * derivative)));
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 127}), Text(extent = {{-90, 30}, {90, -30}}, textString = "PID")}));
end PIDAxis;
