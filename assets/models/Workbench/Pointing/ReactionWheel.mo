within Workbench.Pointing;
model ReactionWheel "Reaction wheel: commanded torque spins the rotor; the body feels the reaction"
  import Modelica.Units.SI;
  parameter SI.MomentOfInertia inertia = 0.02 "Rotor inertia";
  parameter SI.Torque max_torque = 0.2 "Motor torque limit";
  parameter SI.AngularVelocity max_speed = 600.0 "Rotor speed limit (torque fades near it)";
  parameter SI.Power idle_power = 0.5 "Electronics standby power";
  input SI.Torque torque_cmd "Commanded torque on the rotor" annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
  output SI.Torque torque_out "Reaction torque on the vehicle" annotation(Placement(transformation(extent = {{100, 30}, {120, 50}})));
  output SI.AngularMomentum momentum "Stored angular momentum" annotation(Placement(transformation(extent = {{100, -10}, {120, 10}})));
  output SI.Power power "Electrical power draw" annotation(Placement(transformation(extent = {{100, -50}, {120, -30}})));
  // Private rotor speed: an internal value the wheel does NOT publish as an output.
  SI.AngularVelocity omega(start = 0, fixed = true) "Rotor speed (internal)";
protected
  SI.Torque applied "Torque actually applied to the rotor";
equation
  applied = noEvent(max(-max_torque, min(max_torque, torque_cmd)))
            * noEvent(max(0.0, 1.0 - abs(omega) / max_speed));
  inertia * der(omega) = applied;
  torque_out = -applied;
  momentum = inertia * omega;
  power = idle_power + noEvent(abs(applied * omega));
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Ellipse(extent = {{-70, 70}, {70, -70}}, lineColor = {0, 0, 0}, fillColor = {200, 200, 200}, fillPattern = FillPattern.Solid)}));
end ReactionWheel;
