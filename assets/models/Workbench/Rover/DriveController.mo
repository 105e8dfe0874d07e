within Workbench.Rover;
model DriveController "Skid-steer drive controller: throttle and steer to wheel torques"
  parameter Modelica.Units.SI.Torque max_torque = 40.0 "Peak wheel torque per side";
  parameter Real steer_gain(unit = "1") = 1.0 "Differential authority of steer vs throttle";
  parameter Modelica.Units.SI.Time tau = 0.15 "Motor torque lag time constant";
  parameter Modelica.Units.SI.Velocity max_speed = 1.2 "Speed commanded at full throttle";
  input Real throttle(unit = "1", min = -1, max = 1) "Forward command, -1..1"
    annotation(Placement(transformation(extent = {{-140, 20}, {-100, 60}})));
  input Real steer(unit = "1", min = -1, max = 1) "Steer command, -1..1 (+ yaws right)"
    annotation(Placement(transformation(extent = {{-140, -60}, {-100, -20}})));
  output Modelica.Units.SI.Torque torque_left "Left-side wheel torque"
    annotation(Placement(transformation(extent = {{100, 30}, {120, 50}})));
  output Modelica.Units.SI.Torque torque_right "Right-side wheel torque"
    annotation(Placement(transformation(extent = {{100, -50}, {120, -30}})));
  output Modelica.Units.SI.Velocity speed_cmd "Commanded forward speed"
    annotation(Placement(transformation(extent = {{100, -10}, {120, 10}})));
protected
  Real mix_left(unit = "1") "Clamped left-side command";
  Real mix_right(unit = "1") "Clamped right-side command";
  Real frac_left(start = 0, fixed = true, unit = "1") "Left torque as a fraction of peak";
  Real frac_right(start = 0, fixed = true, unit = "1") "Right torque as a fraction of peak";
equation
  mix_left = noEvent(max(-1.0, min(1.0, throttle + steer_gain * steer)));
  mix_right = noEvent(max(-1.0, min(1.0, throttle - steer_gain * steer)));
  tau * der(frac_left) = mix_left - frac_left;
  tau * der(frac_right) = mix_right - frac_right;
  torque_left = max_torque * frac_left;
  torque_right = max_torque * frac_right;
  speed_cmd = max_speed * noEvent(max(-1.0, min(1.0, throttle)));
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
                Text(extent = {{-90, 20}, {90, -20}}, textString = "drive")}));
end DriveController;
